package aodv

import "testing"

// TestNoLoop checks the NoRoutingLoop invariant on hand-made tables: the first loop in the order
// of destinations and start nodes, named from where the chain comes back; invalid routes and
// chains that reach the destination are no loop. Each table is checked twice, as the invariant
// keeps scratch space from one state to the next.
func TestNoLoop(t *testing.T) {
	via := func(dest, next NodeID, valid bool) Route {
		return Route{Dest: dest, NextHop: next, Valid: valid, Hops: 2, ValidSeq: true}
	}
	for _, c := range []struct {
		name   string
		routes [4][]Route // each node's table
		want   string
	}{
		{"chains that reach D", [4][]Route{{via(3, 1, true)}, {via(3, 2, true)}, {via(3, 3, true)}, nil}, ""},
		{"a loop of invalid routes", [4][]Route{{via(3, 1, false)}, {via(3, 0, false)}, nil, nil}, ""},
		{"a loop behind a chain", [4][]Route{{via(3, 1, true)}, {via(3, 2, true)}, {via(3, 1, true)}, nil},
			"routing loop towards D: B -> C -> B"},
		{"the first destination's loop first", [4][]Route{{via(3, 1, true)}, {via(3, 0, true)}, {via(0, 3, true)}, {via(0, 2, true)}},
			"routing loop towards A: C -> D -> C"},
	} {
		s := &System{}
		for i, routes := range c.routes {
			r := New(NodeID(i), Config{}, nil, constClock{}, nil)
			r.routes = routes
			s.Routers = append(s.Routers, r)
		}
		for range 2 {
			got := ""
			if err := s.noLoop(); err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("%s: noLoop() = %q, want %q", c.name, got, c.want)
			}
		}
	}
}
