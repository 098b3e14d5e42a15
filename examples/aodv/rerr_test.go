package aodv

import (
	"fmt"
	"testing"
)

// TestRERRSequenceRule shows the one rule Config.SpecRERRBug changes, on a node 1 whose route to
// 4 goes through 2 with sequence number 5.
func TestRERRSequenceRule(t *testing.T) {
	cases := []struct {
		name       string
		from       NodeID
		seq        uint32
		buggy, fix string
	}{
		// The stale RERR: the specification sets the clock back, the fix ignores it.
		{"older seq from next hop", 2, 3, "E via C seq 3 invalid", "E via C seq 5 hops 2 valid"},
		{"same seq from next hop", 2, 5, "E via C seq 5 invalid", "E via C seq 5 hops 2 valid"},
		// News from the next hop: both adopt it.
		{"newer seq from next hop", 2, 7, "E via C seq 7 invalid", "E via C seq 7 invalid"},
		// Only the next hop's errors count, in both.
		{"newer seq from another neighbour", 3, 9, "E via C seq 5 hops 2 valid", "E via C seq 5 hops 2 valid"},
	}
	for _, tc := range cases {
		for _, bug := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/SpecRERRBug=%v", tc.name, bug), func(t *testing.T) {
				n := newNet(t, Config{SpecRERRBug: bug}, 5, [2]NodeID{1, 2}, [2]NodeID{1, 3})
				r := n.nodes[1]
				if err := r.RequestRoute(4); err != nil {
					t.Fatal(err)
				}
				n.queue = nil // the flood is lost; node 2 answers anyway
				rrep := Message{Type: TypeRREP, Dest: 4, DestSeq: 5, HopCount: 1, Orig: 1, Lifetime: 1000}
				if err := r.Receive(2, rrep); err != nil {
					t.Fatal(err)
				}
				if rt, _ := r.Route(4); rt.String() != "E via C seq 5 hops 2 valid" {
					t.Fatalf("set-up: %v", rt)
				}
				rerr := Message{Type: TypeRERR, Unreachable: []Unreachable{{Dest: 4, Seq: tc.seq}}}
				if err := r.Receive(tc.from, rerr); err != nil {
					t.Fatal(err)
				}
				want := tc.fix
				if bug {
					want = tc.buggy
				}
				if rt, _ := r.Route(4); rt.String() != want {
					t.Errorf("after %v from %v: %v, want %s", rerr, tc.from, rt, want)
				}
			})
		}
	}
}

// TestStaleRERRMakesLoop replays the thesis's specification bug (section 4.6.5) on a line
// 0 - 1 - 2 - 3, with 3 the destination: an RERR from 2 is delayed while 1's route to 3 is
// refreshed twice; when it finally arrives, the specification's rule sets 1's sequence number
// back, and 1 then takes a route from 0, which routes through 1. With the fix the same
// schedule leaves no loop, and the freshness order holds after every step.
func TestStaleRERRMakesLoop(t *testing.T) {
	for _, bug := range []bool{true, false} {
		t.Run(fmt.Sprintf("SpecRERRBug=%v", bug), func(t *testing.T) {
			n := newLine(t, Config{SpecRERRBug: bug}, 4)
			n.order = !bug
			p, a, b, d := n.nodes[0], n.nodes[1], n.nodes[2], NodeID(3)
			isRERR := func(from, to NodeID) func(packet) bool {
				return func(pk packet) bool { return pk.msg.Type == TypeRERR && pk.from == from && pk.to == to }
			}

			request(t, n, a.ID(), d) // a: 3 via 2 seq 0
			n.event("b loses d", func() { b.LinkBroken(d) })
			stale := n.take(isRERR(2, 1)) // RERR{3:1}, delayed
			n.event("a's route expires", func() { a.ExpireRoute(d) })
			request(t, n, a.ID(), d) // a: 3 via 2 seq 1
			n.event("b loses d again", func() { b.LinkBroken(d) })
			n.run()                  // a: seq 2, invalid
			request(t, n, a.ID(), d) // a: 3 via 2 seq 2
			request(t, n, p.ID(), d) // p: 3 via 1 seq 2, answered by a
			if rt, _ := p.Route(d); rt.String() != "D via B seq 2 hops 3 valid" {
				t.Fatalf("set-up: p's route %v", rt)
			}

			n.deliver(stale)
			if rt, _ := a.Route(d); bug != !rt.Valid || bug && rt.Seq != 1 {
				t.Fatalf("stale RERR{3:1} left a with %v", rt)
			}
			if bug {
				// a tells p; the network loses it, as the checker's network may.
				n.take(isRERR(1, 0))
				request(t, n, a.ID(), d)
			} else if err := a.RequestRoute(d); err != nil || len(n.queue) != 0 {
				t.Fatalf("a still has its route and should not ask: %v, %d packets", err, len(n.queue))
			}

			if bug && len(n.loops) == 0 {
				t.Errorf("no routing loop formed with the specification's RERR rule")
			}
			if !bug && len(n.loops) > 0 {
				t.Errorf("loop with the fixed rule: %v", n.loops)
			}
			for _, l := range n.loops {
				t.Log(l)
			}
		})
	}
}
