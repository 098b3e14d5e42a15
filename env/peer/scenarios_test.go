package peer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/env"
)

// The seed's scenarios (Artho et al., section 3.3 and 4), each with a real peer on loopback.

func check(t *testing.T, m *cmc.Model) *engine.Result {
	t.Helper()
	r, err := engine.Check(context.Background(), m, engine.Options{SelfCheck: engine.SelfCheckAll})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readLine reads one line a byte at a time (nothing is read past it, so nothing is lost when the
// handler returns).
func readLine(c io.Reader) string {
	var b strings.Builder
	var one [1]byte
	for {
		n, err := c.Read(one[:])
		if err != nil {
			return "error: " + err.Error()
		}
		if n == 1 && one[0] == '\n' {
			return b.String()
		}
		b.Write(one[:n])
	}
}

// TestWebExchange: two clients each fetch a page over a connection of their own (HTTP/1.0, one
// request and one response per connection, as the seed's web server example), in either order.
// Each connection's conversation is the same whatever the order, so both orders reach the same
// state and the cache answers every replay: 2 clients, each idle, fetched or done.
func TestWebExchange(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "page %s\n", r.URL.Path)
	}))
	defer web.Close()
	s, err := Start(Config{Addr: web.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	m := cmc.NewModel("web")
	p := env.NewPeer(s.Dialer(), env.PeerOptions{Name: "web"})
	m.Environment("web", p)
	type client struct{ Status, Body string }
	for _, name := range []string{"a", "b"} {
		c := &client{}
		m.Process(name, c).On("fetch", func() {
			conn := NetConn(p.Dial(name))
			fmt.Fprintf(conn, "GET /%s HTTP/1.0\r\nHost: x\r\n\r\n", name)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				c.Status = err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			c.Status, c.Body = resp.Status, string(body)
			conn.Close()
			cmc.Assert(c.Body == "page /"+name+"\n", "client %s got %q", name, c.Body)
		}, cmc.When(func() bool { return c.Status == "" }))
	}
	r := check(t, m)
	if len(r.Violations) > 0 || !r.Complete || r.States != 4 {
		t.Fatalf("want 4 states, complete, no violation: %+v", r)
	}
	st := p.Stats()
	t.Logf("%s", st)
	// One physical connection per distinct conversation (the two requests differ after "GET /");
	// the other order is answered from the cache.
	if st.Dials != 2 || st.ReadCache == 0 {
		t.Errorf("want 2 connections and reads from the cache: %s", st)
	}
}

// logServer accepts log lines and answers nothing.
func logServer(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	return l.Addr().String()
}

// TestSharedLogChannel: three processes log to one shared connection in whatever order the
// schedule gives. The seed cannot check this (the byte stream differs by schedule); here each
// order is a branch of the connection's conversation, replayed on a fresh connection when a path
// departs from what the cache holds. The log peer sees each order's lines once per replay.
func TestSharedLogChannel(t *testing.T) {
	s, err := Start(Config{Addr: logServer(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := cmc.NewModel("log")
	p := env.NewPeer(s.Dialer(), env.PeerOptions{Name: "log"})
	m.Environment("log", p)
	type worker struct{ Logged bool }
	for i := range 3 {
		w := &worker{}
		m.Process("w"+strconv.Itoa(i), w).On("work", func() {
			if !p.Open("log") {
				p.Dial("log")
			}
			fmt.Fprintf(p.Conn("log"), "worker %d done\n", i)
			w.Logged = true
		}, cmc.When(func() bool { return !w.Logged }))
	}
	r := check(t, m)
	if len(r.Violations) > 0 || !r.Complete {
		t.Fatalf("%+v", r)
	}
	st := p.Stats()
	t.Logf("%d states; %s", r.States, st)
	// 1 + 3 + 6 + 6 histories: the order of the lines is part of the state.
	if r.States != 16 || st.Divergences == 0 {
		t.Errorf("want 16 states (every order of the lines) and divergences: %d, %s", r.States, st)
	}
}

// whoServer counts the connections that said HELLO: WHO answers how many, so a connection's
// answer depends on the others (the seed's chat server, which it cannot check).
func whoServer(t *testing.T) (addr string, reset func(*Server) error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	joined := 0
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					mu.Lock()
					switch strings.TrimSpace(line) {
					case "HELLO":
						joined++
						io.WriteString(c, "+OK\n")
					case "WHO":
						io.WriteString(c, strconv.Itoa(joined)+"\n")
					}
					mu.Unlock()
				}
			}()
		}
	}()
	return l.Addr().String(), func(*Server) error { mu.Lock(); joined = 0; mu.Unlock(); return nil }
}

// whoModel: two clients join in either order and ask how many have joined; each asserts the
// answer is what the state says.
func whoModel(p *env.Peer) *cmc.Model {
	m := cmc.NewModel("who")
	m.Environment("chat", p)
	type client struct {
		Conn          int
		Joined, Asked bool
		Answer        string
	}
	cs := []*client{{}, {}}
	joined := func() int {
		n := 0
		for _, c := range cs {
			if c.Joined {
				n++
			}
		}
		return n
	}
	for i, c := range cs {
		key := "c" + strconv.Itoa(i)
		m.Process(key, c).
			On("join", func() {
				conn := p.Dial(key)
				io.WriteString(conn, "HELLO\n")
				cmc.Assert(readLine(conn) == "+OK", "no +OK")
				c.Joined = true
			}, cmc.When(func() bool { return !c.Joined })).
			On("who", func() {
				io.WriteString(p.Conn(key), "WHO\n")
				c.Answer, c.Asked = readLine(p.Conn(key)), true
				cmc.Assert(c.Answer == strconv.Itoa(joined()), "WHO answered %s with %d joined", c.Answer, joined())
			}, cmc.When(func() bool { return c.Joined && !c.Asked }))
	}
	return m
}

// TestReplyDependsOnAnotherConnection: the peer's answer on one connection depends on another.
// Declared Shared, the cache keeps one history for all connections and resets the peer before a
// replay: checked, every answer right. In per-connection mode the cache has only the asking
// connection's bytes, so it serves the answer it recorded when the other client had not joined:
// the model's assertion catches that here, and the documentation says to declare such a peer
// Shared (docs/iocache.md).
func TestReplyDependsOnAnotherConnection(t *testing.T) {
	addr, reset := whoServer(t)
	s, err := Start(Config{Addr: addr, Reset: reset})
	if err != nil {
		t.Fatal(err)
	}
	p := env.NewPeer(s.Dialer(), env.PeerOptions{Name: "chat", Shared: true})
	r := check(t, whoModel(p))
	if len(r.Violations) > 0 || !r.Complete {
		t.Fatalf("shared: %+v", r.Violations[0].Violation)
	}
	t.Logf("shared: %d states; %s", r.States, p.Stats())
	p.Shutdown()

	reset(s)
	p = env.NewPeer(s.Dialer(), env.PeerOptions{Name: "chat"})
	r = check(t, whoModel(p))
	if len(r.Violations) == 0 || !strings.HasPrefix(r.Violations[0].Violation.Message, "WHO answered") {
		t.Fatalf("per-connection mode should serve a stale answer here; got %+v %+v", r, r.Violations[0].Violation)
	}
	t.Logf("per connection: %s", r.Violations[0].Violation.Message)
	p.Shutdown()
}
