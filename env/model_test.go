package env

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// counterClient increments and reads counters on a peer whose counters span connections, and
// knows what the answers must be: every state the search reaches asserts that the cache answered
// each path as the peer would have.
type counterClient struct {
	Open   bool
	Steps  int
	Counts [2]int // what this path incremented
	Conns  int    // connections opened
}

func counterModel(s *scripted) (*cmc.Model, *Peer) {
	m := cmc.NewModel("counter")
	peer := NewPeer(resettable{s}, PeerOptions{Name: "db", Shared: true})
	c := &counterClient{}
	m.Environment("db", peer)
	m.Process("client", c).On("request", func() {
		if !c.Open {
			peer.Dial("c")
			c.Open = true
			c.Conns++
		}
		conn := peer.Conn("c")
		switch cmc.Choose(4) {
		case 0, 1:
			k := cmc.Choose(2)
			c.Counts[k]++
			got := roundTrip(conn, "INCR "+"ab"[k:k+1])
			cmc.Assert(got == ":"+strconv.Itoa(c.Counts[k]), "INCR answered %q, want :%d", got, c.Counts[k])
		case 2:
			got := roundTrip(conn, "GET a")
			cmc.Assert(got == "$"+strconv.Itoa(c.Counts[0]), "GET answered %q, want $%d", got, c.Counts[0])
		case 3: // a new connection: the counters are the peer's, not the connection's
			conn.Close()
			c.Open = false
		}
		c.Steps++
	}, cmc.When(func() bool { return c.Steps < 4 && c.Conns < 3 }))
	return m, peer
}

// roundTrip sends a line and reads the one-line answer.
func roundTrip(c Conn, line string) string {
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		panic(err)
	}
	var b strings.Builder
	buf := make([]byte, 3) // short reads on purpose: answers come in pieces
	for !strings.HasSuffix(b.String(), "\n") {
		n, err := c.Read(buf)
		if err != nil {
			return "error: " + err.Error()
		}
		b.Write(buf[:n])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestPeerUnderSearch checks a client of a shared, stateful peer with the engine, every
// transition self-checked (each run again on restored states, which the cache must answer
// alike), with one instance and with two: the same result, no violation, and the cache did serve
// replays from what it learnt.
func TestPeerUnderSearch(t *testing.T) {
	var results []string
	for _, workers := range []int{1, 2} {
		s := newScripted()
		m, peer := counterModel(s)
		r, err := engine.Check(context.Background(), m, engine.Options{
			SelfCheck: engine.SelfCheckAll, Workers: workers,
			Build: func() (*cmc.Model, error) { m, _ := counterModel(newScripted()); return m, nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range r.Violations {
			t.Fatalf("workers=%d: %+v", workers, v.Violation)
		}
		st := peer.Stats()
		if st.ReadCache == 0 || st.Replays == 0 {
			t.Errorf("workers=%d: the cache served nothing or never replayed: %s", workers, st)
		}
		t.Logf("workers=%d: %s", workers, st)
		res := fmt.Sprintf("states %d transitions %d complete %v", r.States, r.Transitions, r.Complete)
		t.Logf("workers=%d: %s", workers, res)
		results = append(results, res)
	}
	if results[0] != results[1] {
		t.Errorf("one instance: %s; two: %s", results[0], results[1])
	}
}

// TestPeerStateNamesAGlobal: a Peer's state reaches a package-level variable, which is what keeps
// the parallel search (engine/parallel.go) to one instance: another instance's cache would not
// know this instance's positions.
func TestPeerStateNamesAGlobal(t *testing.T) {
	var enc canon.Encoder
	if _, err := enc.Encode(nil, NewPeer(newScripted(), PeerOptions{})); err != nil {
		t.Fatal(err)
	}
	if !enc.MetGlobals() {
		t.Fatal("a Peer's capture met no global: parallel workers would each get states whose positions their cache does not hold")
	}
}
