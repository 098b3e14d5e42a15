package store

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmc-go/cmc/store/pgtest"
)

func TestDollarParams(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b IN (?, ?)", "a = $1 AND b IN ($2, $3)"},
		{`x = '?' AND y = "a?b" AND z = ?`, `x = '?' AND y = "a?b" AND z = $1`},
		{"x = 'it''s ?' AND y = ?", "x = 'it''s ?' AND y = $1"},
	} {
		if got := dollarParams(c.in); got != c.want {
			t.Errorf("dollarParams(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"traces.db", "traces.db"},
		{"postgres://cmc:s3cret@db:5432/cmc", "postgres://cmc@db:5432/cmc"},
		{"postgresql://cmc@db/cmc?sslmode=require", "postgresql://cmc@db/cmc?sslmode=require"},
		{"postgres://db/cmc?password=s3cret&sslmode=disable", "postgres://db/cmc?sslmode=disable"},
		{"postgres://cmc:s3cret@[::1/cmc", "postgres://(a URL that does not parse)"},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The schema is made in an empty database, recorded in cmc_schema, and left alone on reopening.
func TestPostgresMigratesEmptyDatabase(t *testing.T) {
	url := pgtest.DB(t)
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	var app, ver int64
	if err := s.db.QueryRow("SELECT application, version FROM "+pgSchemaTable).Scan(&app, &ver); err != nil {
		t.Fatal(err)
	}
	if app != applicationID || ver != int64(SchemaVersion()) {
		t.Errorf("cmc_schema: application %#x version %d, want %#x %d", app, ver, applicationID, SchemaVersion())
	}
	id, err := s.AddTrace(0, richTrace(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(url); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := complete(s, id); err != nil {
		t.Error(err)
	}
	if s.Path() != Printable(url) || strings.Contains(s.Path(), pgtest.Start(t).Password) {
		t.Errorf("Path() = %s, want the URL without its password", s.Path())
	}
}

// Several processes of a cluster open a new database at once: one makes the schema, the others
// wait for it (an advisory lock), and all can write.
func TestPostgresOpenTogether(t *testing.T) {
	url := pgtest.DB(t)
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			s, err := Open(url)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			_, errs[i] = s.AddRun(Run{Model: fmt.Sprintf("worker%d", i)})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("store %d: %v", i, err)
		}
	}
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, err := s.Runs(); err != nil || len(runs) != n {
		t.Errorf("runs: %d, %v; want %d", len(runs), err, n)
	}
}

// Two stores find the same violation at once: it is stored once.
func TestPostgresSameTraceFromTwoStores(t *testing.T) {
	url := pgtest.DB(t)
	var ids [2]int64
	var errs [2]error
	var wg sync.WaitGroup
	for i := range 2 {
		s, err := Open(url)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		wg.Go(func() { ids[i], errs[i] = s.AddTrace(0, newSynth(3).trace(200), time.Time{}) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || ids[0] != ids[1] {
		t.Errorf("the same trace from two stores: ids %v, errors %v", ids, errs)
	}
}

// A database read-only: it reads, and the server refuses writes.
func TestPostgresReadOnly(t *testing.T) {
	s, url := openPostgresTemp(t)
	id, err := s.AddTrace(0, richTrace(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(url)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, _, err := ro.Trace(id); err != nil {
		t.Error(err)
	}
	if _, err := ro.AddRun(Run{Model: "m"}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a write through a read-only store: %v", err)
	}
	if _, err := OpenReadOnly(pgtest.DB(t)); err == nil || !strings.Contains(err.Error(), "read-only: it has schema 0") {
		t.Errorf("an empty database read-only: %v", err)
	}
}

// A database with another program's tables is refused and left alone.
func TestPostgresNotAStore(t *testing.T) {
	url := pgtest.DB(t)
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec("DROP TABLE " + pgSchemaTable + "; CREATE TABLE users (id BIGINT)"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(url)
	if !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), "it has tables") || !strings.Contains(err.Error(), "users") {
		t.Errorf("another program's database: %v", err)
	}
}

// A server that is not there, one that never answers, and a wrong password: one line each,
// naming the URL without the password, and no hang (connect_timeout).
func TestPostgresCannotConnect(t *testing.T) {
	srv := pgtest.Start(t)
	closed := freeAddr(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() { // accepts and says nothing
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	wrong := *mustParse(t, srv.URL("postgres"))
	wrong.User = url.UserPassword(srv.User, "not-"+srv.Password)
	for _, c := range []struct{ url, says string }{
		{"postgres://cmc:s3cret@" + closed + "/cmc", "store: cannot reach postgres://cmc@" + closed + "/cmc: dial tcp " + closed},
		{"postgres://cmc:s3cret@" + silent.Addr().String() + "/cmc?connect_timeout=1", "store: cannot reach postgres://cmc@" + silent.Addr().String() + "/cmc?connect_timeout=1: no answer within 1s"},
		{wrong.String(), "store: cannot log in to " + Printable(wrong.String()) + ": password authentication failed"},
	} {
		for _, open := range []func(string) (*Store, error){Open, OpenReadOnly} {
			s, err := open(c.url)
			if err == nil {
				s.Close()
				t.Errorf("%s: opened", c.url)
				continue
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, c.says) || strings.Contains(msg, "\n") || strings.Contains(msg, "s3cret") ||
				strings.Contains(msg, srv.Password) {
				t.Errorf("%s:\n got %s\nwant %s... on one line, without the password", Printable(c.url), msg, c.says)
			}
		}
	}
}

// freeAddr is a loopback address where nothing listens.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func mustParse(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
