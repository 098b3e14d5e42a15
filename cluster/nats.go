package cluster

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// Config says how to reach NATS. The secrets come from flags or the environment (FromEnv), never
// from a file this package writes, and are never printed: errors name Redacted(URL).
type Config struct {
	URL      string `json:"url"`
	Token    string `json:"token,omitempty"`
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
	Creds    string `json:"creds,omitempty"` // a NATS credentials file (JWT and nkey seed)
}

// The environment variables FromEnv reads.
const (
	EnvURL      = "CMC_NATS_URL"
	EnvToken    = "CMC_NATS_TOKEN"
	EnvUser     = "CMC_NATS_USER"
	EnvPassword = "CMC_NATS_PASSWORD"
	EnvCreds    = "CMC_NATS_CREDS"
)

// FromEnv fills the fields c leaves empty from the environment.
func (c Config) FromEnv() Config {
	for _, f := range []struct {
		v   *string
		env string
	}{{&c.URL, EnvURL}, {&c.Token, EnvToken}, {&c.User, EnvUser}, {&c.Password, EnvPassword}, {&c.Creds, EnvCreds}} {
		if *f.v == "" {
			*f.v = os.Getenv(f.env)
		}
	}
	return c
}

// Redacted is a NATS URL (or a comma-separated list) without user names, passwords or tokens.
func Redacted(raw string) string {
	var out []string
	for _, one := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(one))
		if err != nil || u.Host == "" {
			out = append(out, "(a NATS URL that does not parse)")
			continue
		}
		u.User = nil
		out = append(out, u.String())
	}
	return strings.Join(out, ",")
}

// connectTimeout bounds how long an unreachable server keeps a partition waiting.
const connectTimeout = 3 * time.Second

// Connect connects to NATS as c says, or fails within a few seconds with an error that names the
// server (without its secrets).
func Connect(c Config, name string) (*nats.Conn, error) {
	if c.URL == "" {
		return nil, errors.New("no NATS URL: pass -nats nats://host:4222 or set " + EnvURL)
	}
	opts := []nats.Option{nats.Name(name), nats.Timeout(connectTimeout), nats.MaxReconnects(30),
		nats.ReconnectWait(time.Second)}
	switch {
	case c.Creds != "":
		opts = append(opts, nats.UserCredentials(c.Creds))
	case c.User != "":
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	case c.Token != "":
		opts = append(opts, nats.Token(c.Token))
	}
	nc, err := nats.Connect(c.URL, opts...)
	if err != nil {
		hint := "is the server running and reachable from here?"
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(err.Error(), "uthoriz") {
			hint = "check the token, user and password or credentials file (-nats-token, -nats-user, -nats-password, -nats-creds or " + EnvToken + ", ...)"
		}
		return nil, fmt.Errorf("connect to NATS at %s: %v (%s)", Redacted(c.URL), err, hint)
	}
	return nc, nil
}
