package peer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/env"
	"github.com/cmc-go/cmc/replay"
)

// counterServer is a UDP server on loopback that answers each datagram with how many it has had
// from that client (its source address: one socket) and the datagram: "2 y".
func counterServer(t *testing.T) string {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		seen := map[string]int{}
		buf := make([]byte, 1500)
		for {
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				return
			}
			seen[from.String()]++
			c.WriteTo(fmt.Appendf(nil, "%d %s", seen[from.String()], buf[:n]), from)
		}
	}()
	return c.LocalAddr().String()
}

// TestDatagrams: a client sends two datagrams over UDP to a real server on loopback, each one
// "x" or "y" as the checker chooses, and checks each answer. Every choice after the first
// datagram departs from the conversation the cache holds, so the cache opens a fresh socket and
// sends the path's datagrams again, checking the answers; every path is answered right. Then the
// server goes away, and a replay of a trace answers from the datagrams the trace recorded.
func TestDatagrams(t *testing.T) {
	s, err := Start(Config{Network: "udp", Addr: counterServer(t)})
	if err != nil {
		t.Fatal(err)
	}
	build := func(d env.Dialer) (*cmc.Model, *env.Peer) {
		m := cmc.NewModel("udp")
		p := env.NewPeer(d, env.PeerOptions{Name: "udp", Datagrams: true})
		m.Environment("udp", p)
		type client struct{ Sent []string }
		c := &client{}
		m.Process("client", c).On("send", func() {
			conn := p.Conn("s")
			if len(c.Sent) == 0 {
				conn = p.Dial("s")
			}
			what := cmc.ChooseOf([]string{"x", "y"}, func(s string) string { return s })
			if _, err := conn.Write([]byte(what)); err != nil {
				panic(err)
			}
			c.Sent = append(c.Sent, what)
			buf := make([]byte, 64)
			n, err := conn.Read(buf)
			got := string(buf[:n])
			if err != nil {
				got = err.Error()
			}
			want := fmt.Sprintf("%d %s", len(c.Sent), what)
			cmc.Assert(got == want, "after %v the server answered %q, want %q", c.Sent, got, want)
		}, cmc.When(func() bool { return len(c.Sent) < 2 }))
		return m, p
	}
	m, p := build(s.Dialer())
	r := check(t, m)
	if len(r.Violations) > 0 || !r.Complete || r.States != 7 {
		t.Fatalf("want 7 states (sent nothing, x, y, xx, xy, yx, yy), complete, no violation: %+v", r)
	}
	st := p.Stats()
	t.Logf("%s", st)
	// The search departs from the cache three times (y first, x then y, y then y), two of them
	// after a first datagram, which a fresh socket sends again.
	if st.Dials != 4 || st.Divergences != 3 || st.Replays != 2 || st.ReadCache == 0 {
		t.Errorf("want 4 sockets, 3 divergences, 2 replays and answers from the cache: %s", st)
	}
	p.Shutdown()

	// A random walk's trace, made against the server, replayed without it.
	m1, _ := build(s.Dialer())
	w, err := engine.Check(context.Background(), m1, engine.Options{Search: "random", Steps: 2, Keep: true, Seed: 3})
	if err != nil || w.Walk == nil || len(w.Walk.Steps) != 2 {
		t.Fatalf("a random walk of 2 steps: %v %+v", err, w)
	}
	tr := w.Walk
	m2, _ := build(refused{})
	rs, err := replay.Open(m2, tr)
	if rs == nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if sum := rs.Summary(); !sum.OK() {
		t.Fatalf("the replay without the server: %s", sum.Describe("the trace"))
	}
	if !strings.Contains(fmt.Sprint(tr.Steps[len(tr.Steps)-1].Notes), "io-read") {
		t.Errorf("the trace has no datagrams in its notes: %v", tr.Steps)
	}
}

type refused struct{}

func (refused) Dial() (io.ReadWriteCloser, error) { return nil, errors.New("connection refused") }
