package views

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/cmc-go/cmc/internal/loopback"
)

// The views show the state of the user's program, so a page on the same machine that is not ours
// must not read them: every request needs the session token (the ?token= of the URL cmcdap
// prints, then a cookie), and the websocket also needs an Origin of this server or of a VS Code
// webview, so another site open in the browser cannot connect even by guessing.

// cookieName is the cookie that holds the token after the first visit. Cookies are shared by
// every port of a host, so the name carries the port: two cmcdap sessions on one machine do not
// log each other out.
func cookieName(r *http.Request) string {
	_, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		port = "80"
	}
	return "cmc_token_" + port
}

// NewToken returns a fresh random session token.
func NewToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("views: make session token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// tokenOf returns the token a request carries: in the query, else in the cookie.
func tokenOf(r *http.Request) (tok string, fromQuery bool) {
	if t := r.URL.Query().Get("token"); t != "" {
		return t, true
	}
	if c, err := r.Cookie(cookieName(r)); err == nil {
		return c.Value, false
	}
	return "", false
}

func (s *Server) validToken(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// originAllowed accepts no Origin (not a browser: the token alone guards it), this server's own
// origin, and VS Code webviews.
func originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	if strings.HasPrefix(o, "vscode-webview://") {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}

// CheckLoopback refuses an address other programs on the network could reach, unless
// allowRemote.
func CheckLoopback(addr string, allowRemote bool) error {
	if err := loopback.Check(addr, allowRemote, "sees your program's state in the views", "-allow-remote"); err != nil {
		return fmt.Errorf("views: %w", err)
	}
	return nil
}

// csp is the pages' Content Security Policy: scripts and styles only from this server (the
// bundle), WebAssembly for Graphviz, data only over our own connections.
const csp = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self' ws://127.0.0.1:* ws://localhost:*; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}
