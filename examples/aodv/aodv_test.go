package aodv

import (
	"errors"
	"slices"
	"testing"
)

func request(t *testing.T, n *testNet, from, dest NodeID) {
	t.Helper()
	n.event("request route", func() {
		if err := n.nodes[from].RequestRoute(dest); err != nil {
			t.Fatalf("node %v: %v", from, err)
		}
	})
	n.run()
}

func TestDiscoveryAcrossLine(t *testing.T) {
	n := newLine(t, Config{}, 4)
	n.order = true
	request(t, n, 0, 3)

	wantTable(t, n.nodes[0],
		"B via B seq ? hops 1 valid",
		"D via B seq 0 hops 3 valid")
	wantTable(t, n.nodes[1],
		"A via A seq 1 hops 1 valid prec [C]",
		"C via C seq ? hops 1 valid prec [A]",
		"D via C seq 0 hops 2 valid prec [A]")
	wantTable(t, n.nodes[2],
		"A via B seq 1 hops 2 valid prec [D]",
		"B via B seq ? hops 1 valid",
		"D via D seq 0 hops 1 valid prec [B]")
	wantTable(t, n.nodes[3],
		"A via C seq 1 hops 3 valid",
		"C via C seq ? hops 1 valid")
	if got := n.nodes[0].OwnSeq(); got != 1 {
		t.Errorf("originator's own seq = %d, want 1 (incremented before discovery)", got)
	}
	want := []string{
		"A -> *: RREQ{id 1 orig A seq 1 dest D seq ? hops 0 flags 0x10}",
		"B -> *: RREQ{id 1 orig A seq 1 dest D seq ? hops 1 flags 0x10}",
		"C -> *: RREQ{id 1 orig A seq 1 dest D seq ? hops 2 flags 0x10}",
		"D -> C: RREP{dest D seq 0 hops 0 orig A life 6000}",
		"C -> B: RREP{dest D seq 0 hops 1 orig A life 6000}",
		"B -> A: RREP{dest D seq 0 hops 2 orig A life 6000}",
	}
	if got := n.sends(nil); !slices.Equal(got, want) {
		t.Errorf("sent:\n%q\nwant:\n%q", got, want)
	}
	if err := n.nodes[0].RequestRoute(3); err != nil || len(n.queue) != 0 {
		t.Errorf("request with a valid route: err %v, %d packets sent; want nothing", err, len(n.queue))
	}
	if len(n.loops) > 0 {
		t.Errorf("loops: %v", n.loops)
	}
}

func TestIntermediateReply(t *testing.T) {
	n := newLine(t, Config{}, 4)
	n.order = true
	request(t, n, 1, 3)
	n.log = nil
	request(t, n, 0, 3)

	want := []string{
		"A -> *: RREQ{id 1 orig A seq 1 dest D seq ? hops 0 flags 0x10}",
		"B -> A: RREP{dest D seq 0 hops 2 orig A life 6000}",
	}
	if got := n.sends(nil); !slices.Equal(got, want) {
		t.Errorf("node 1 should answer from its own route and stop the flood; sent:\n%q\nwant:\n%q", got, want)
	}
	if rt, _ := n.nodes[0].Route(3); rt.String() != "D via B seq 0 hops 3 valid" {
		t.Errorf("originator's route: %v", rt)
	}
	// Node 0 now routes through 1, and 2 may come to route to 0 through 1.
	if rt, _ := n.nodes[1].Route(3); !slices.Contains(rt.Precursors, 0) {
		t.Errorf("node 1's route to 3 lacks precursor 0: %v", rt)
	}
	if rt, _ := n.nodes[1].Route(0); !slices.Contains(rt.Precursors, 2) {
		t.Errorf("node 1's route to 0 lacks precursor 2: %v", rt)
	}
	if _, ok := n.nodes[3].Route(0); ok {
		t.Errorf("node 3 heard node 0's RREQ, which node 1 should have answered")
	}
}

func TestDestinationOnlyForcesDestinationReply(t *testing.T) {
	n := newLine(t, Config{DestinationOnly: true}, 4)
	request(t, n, 1, 3)
	n.log = nil
	request(t, n, 0, 3)
	if got := n.sends(func(s sent) bool { return s.msg.Type == TypeRREP && s.from == 3 }); len(got) != 1 {
		t.Errorf("with D set only node 3 may answer; its replies: %q", got)
	}
}

func TestLinkBreakSendsRERR(t *testing.T) {
	n := newLine(t, Config{}, 4)
	n.order = true
	request(t, n, 0, 3)
	n.log = nil

	n.cut(2, 3)
	n.event("link 2-3 breaks", func() { n.nodes[2].LinkBroken(3) })
	n.run()

	// Each node on the path invalidates with the sequence number the break produced: one more
	// than any route to 3 there was, so no old route through them can answer a new request.
	for i, want := range []string{"D via B seq 1 invalid", "D via C seq 1 invalid", "D via D seq 1 invalid"} {
		if rt, _ := n.nodes[i].Route(3); rt.String() != want {
			t.Errorf("node %d: %v, want %s", i, rt, want)
		}
	}
	want := []string{"C -> B: RERR{D:1}", "B -> A: RERR{D:1}"}
	if got := n.sends(nil); !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q (unicast: one precursor each)", got, want)
	}
	if rt, _ := n.nodes[2].Route(0); !rt.Valid {
		t.Errorf("node 2's route to 0 does not use the broken link but was invalidated: %v", rt)
	}

	// The link comes back; a new discovery asks for seq 1, and node 3 answers with it.
	n.join(2, 3)
	n.log = nil
	request(t, n, 0, 3)
	if rt, _ := n.nodes[0].Route(3); rt.String() != "D via B seq 1 hops 3 valid" {
		t.Errorf("after rediscovery: %v", rt)
	}
	if got := n.nodes[3].OwnSeq(); got != 1 {
		t.Errorf("destination's own seq = %d, want 1 (raised to the one asked for)", got)
	}
}

func TestRERRBroadcastToSeveralPrecursors(t *testing.T) {
	// A star: 1 in the middle, 0, 2 and 3 around it.
	n := newNet(t, Config{}, 4, [2]NodeID{0, 1}, [2]NodeID{1, 2}, [2]NodeID{1, 3})
	request(t, n, 0, 3)
	request(t, n, 2, 3)
	if rt, _ := n.nodes[1].Route(3); !slices.Equal(rt.Precursors, []NodeID{0, 2}) {
		t.Fatalf("node 1's route to 3: %v, want precursors [0 2]", rt)
	}
	n.log = nil
	n.cut(1, 3)
	n.nodes[1].LinkBroken(3)
	n.run()
	if got, want := n.sends(nil), []string{"B -> *: RERR{D:1}"}; !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	for _, i := range []int{0, 2} {
		if rt, _ := n.nodes[i].Route(3); rt.Valid || rt.Seq != 1 {
			t.Errorf("node %d: %v, want invalid with seq 1", i, rt)
		}
	}
}

func TestDuplicateRREQSuppressed(t *testing.T) {
	// A square: 0 reaches 3 through 1 and through 2.
	n := newNet(t, Config{}, 4, [2]NodeID{0, 1}, [2]NodeID{0, 2}, [2]NodeID{1, 3}, [2]NodeID{2, 3})
	request(t, n, 0, 3)
	for id, want := range []int{1, 1, 1, 0} {
		got := n.sends(func(s sent) bool { return s.msg.Type == TypeRREQ && s.from == NodeID(id) })
		if len(got) != want {
			t.Errorf("node %d broadcast %q; want %d RREQ", id, got, want)
		}
	}
	if got := n.sends(ofType(TypeRREP)); len(got) != 2 {
		t.Errorf("replies %q: want node 3's one reply and its one relay", got)
	}
	if !n.nodes[3].HasSeen(0, 1) {
		t.Errorf("node 3 does not remember RREQ (0, 1)")
	}
	// The same RREQ again, straight from the originator: nothing happens.
	before := len(n.log)
	rreq := Message{Type: TypeRREQ, RREQID: 1, Dest: 3, Orig: 0, OrigSeq: 1, Flags: FlagUnknownSeq}
	if err := n.nodes[1].Receive(0, rreq); err != nil {
		t.Fatal(err)
	}
	if len(n.log) != before {
		t.Errorf("a duplicate RREQ was acted on: %q", n.sends(nil)[before:])
	}
}

func TestExpireRoute(t *testing.T) {
	n := newLine(t, Config{}, 4)
	request(t, n, 0, 3)
	n.log = nil
	if !n.nodes[1].ExpireRoute(3) {
		t.Fatal("ExpireRoute found no valid route")
	}
	if rt, _ := n.nodes[1].Route(3); rt.String() != "D via C seq 1 invalid" {
		t.Errorf("expired route: %v, want invalid with seq incremented and precursors gone", rt)
	}
	if len(n.log) != 0 {
		t.Errorf("expiry sent %q; RFC 3561 sends no RERR on expiry", n.sends(nil))
	}
	if n.nodes[1].ExpireRoute(3) || n.nodes[1].ExpireRoute(7) {
		t.Errorf("ExpireRoute reported expiring an invalid or missing route")
	}
}

func TestTickFiresTimeouts(t *testing.T) {
	n := newLine(t, Config{}, 4)
	request(t, n, 0, 3)
	r := n.nodes[0]
	steps := []struct {
		now   Time
		lines []string
		seen  bool
	}{
		{2999, []string{"B via B seq ? hops 1 valid", "D via B seq 0 hops 3 valid"}, true},
		{3000, []string{"B via B seq ? invalid", "D via B seq 0 hops 3 valid"}, true},  // ACTIVE_ROUTE_TIMEOUT
		{5600, []string{"B via B seq ? invalid", "D via B seq 0 hops 3 valid"}, false}, // PATH_DISCOVERY_TIME
		{6000, []string{"B via B seq ? invalid", "D via B seq 1 invalid"}, false},      // the RREP's lifetime
		{18000, []string{"D via B seq 1 invalid"}, false},                              // DELETE_PERIOD after 3000
		{21000, nil, false},
	}
	for _, s := range steps {
		n.now = s.now
		r.Tick()
		wantTable(t, r, s.lines...)
		if got := r.HasSeen(0, 1); got != s.seen {
			t.Errorf("at %d: HasSeen(0, 1) = %v, want %v", s.now, got, s.seen)
		}
	}
	if r.Routes() != nil {
		t.Errorf("empty table should be nil")
	}
}

func TestReboot(t *testing.T) {
	n := newLine(t, Config{}, 4)
	request(t, n, 0, 3)
	n.log = nil
	r := n.nodes[1]
	n.now = 100
	r.Reboot()
	if r.Routes() != nil || r.OwnSeq() != 0 || r.RREQID() != 0 || r.HasSeen(0, 1) || !r.Waiting() {
		t.Fatalf("after reboot: routes %v seq %d rreq id %d waiting %v", r.Routes(), r.OwnSeq(), r.RREQID(), r.Waiting())
	}
	if err := r.RequestRoute(3); !errors.Is(err, ErrRebootWait) {
		t.Errorf("RequestRoute while waiting: %v, want ErrRebootWait", err)
	}
	// Control packets teach a waiting node nothing but its own sequence number.
	for _, m := range []Message{
		{Type: TypeRREQ, RREQID: 2, Dest: 3, Orig: 0, OrigSeq: 2, DestSeq: 0},
		{Type: TypeRREP, Dest: 3, DestSeq: 4, HopCount: 1, Orig: 0},
		{Type: TypeRREQ, RREQID: 3, Dest: 1, Orig: 0, OrigSeq: 3, DestSeq: 7},
	} {
		if err := r.Receive(0, m); err != nil {
			t.Fatal(err)
		}
	}
	if r.Routes() != nil || len(n.log) != 0 || r.OwnSeq() != 7 {
		t.Errorf("while waiting: routes %v, sent %q, own seq %d (want none, none, 7)", r.Routes(), n.sends(nil), r.OwnSeq())
	}
	n.now = 100 + r.Config().DeletePeriod - 1
	if r.Tick(); !r.Waiting() {
		t.Errorf("wait ended before DELETE_PERIOD")
	}
	n.now++
	if r.Tick(); r.Waiting() {
		t.Errorf("wait did not end after DELETE_PERIOD")
	}
	r.Reboot()
	if !r.EndRebootWait() || r.Waiting() || r.EndRebootWait() {
		t.Errorf("EndRebootWait should end the wait once")
	}
}

func TestAllocFailure(t *testing.T) {
	n := newLine(t, Config{}, 4)
	r := n.nodes[0]
	n.allocs = 1
	if err := r.RequestRoute(3); err == nil {
		t.Fatal("RequestRoute succeeded without a buffer")
	}
	if r.OwnSeq() != 0 || r.RREQID() != 0 || r.HasSeen(0, 1) || len(n.log) != 0 {
		t.Errorf("a failed request changed state or sent: seq %d id %d", r.OwnSeq(), r.RREQID())
	}
	request(t, n, 0, 3)

	// Without a buffer for the RERR the routes still break; the precursors hear nothing.
	n.log = nil
	n.allocs = 1
	n.nodes[2].LinkBroken(3)
	n.run()
	if rt, _ := n.nodes[2].Route(3); rt.Valid || rt.Seq != 1 || len(n.log) != 0 {
		t.Errorf("node 2: %v, sent %q", rt, n.sends(nil))
	}
	if rt, _ := n.nodes[1].Route(3); !rt.Valid {
		t.Errorf("node 1 invalidated a route no RERR told it about: %v", rt)
	}
}

func TestSendToLostNeighbourIsLinkBreak(t *testing.T) {
	n := newLine(t, Config{}, 3)
	n.order = true
	n.event("request", func() {
		if err := n.nodes[0].RequestRoute(2); err != nil {
			t.Fatal(err)
		}
	})
	// Deliver until the RREQ is about to reach node 2, then take the link away: node 2's reply
	// cannot be sent, and the link layer's complaint is a link break.
	n.deliver(n.take(func(p packet) bool { return p.to == 1 }))
	n.cut(1, 2)
	n.deliver(n.take(func(p packet) bool { return p.to == 2 }))
	wantTable(t, n.nodes[2],
		"A via B seq 2 invalid",
		"B via B seq ? invalid")
	if got := n.sends(ofType(TypeRREP)); len(got) != 0 {
		t.Errorf("a reply was sent over a broken link: %q", got)
	}
}

func TestReceiveRefusesMalformed(t *testing.T) {
	n := newLine(t, Config{}, 3)
	for _, tc := range []struct {
		from NodeID
		m    Message
	}{
		{0, Message{Type: 9}},
		{0, Message{Type: TypeRERR}},
		{0, Message{Type: TypeRREP, Dest: 2, HopCount: Infinity, Orig: 1}},
		{0, Message{Type: TypeRREP, Dest: 2, HopCount: 0, Orig: 1}}, // hop 0 but not from its destination
		{2, Message{Type: TypeRREQ, Dest: 2, Orig: 0, RREQID: 1}},   // hop 0 but not from its originator
		{0, Message{Type: TypeRREQ, Dest: 0, Orig: 0, RREQID: 1}},
	} {
		if err := n.nodes[1].Receive(tc.from, tc.m); !errors.Is(err, ErrMalformed) {
			t.Errorf("Receive(%v, %v) = %v, want ErrMalformed", tc.from, tc.m, err)
		}
	}
	if n.nodes[1].Routes() != nil || len(n.log) != 0 {
		t.Errorf("a refused message changed state or sent something")
	}
}

func TestGratuitousReply(t *testing.T) {
	n := newLine(t, Config{Gratuitous: true}, 4)
	n.order = true
	request(t, n, 1, 3)
	request(t, n, 0, 3)
	// Node 1 answered node 0 and also told node 3 about node 0, so 3 can reach 0 without
	// a discovery of its own.
	if rt, ok := n.nodes[3].Route(0); !ok || rt.String() != "A via C seq 1 hops 3 valid" {
		t.Errorf("node 3's route to 0: %v", rt)
	}
}
