package aodv

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc"
)

// properties adds the thesis's Table 4.2: the routing loop invariant, routing table assertions,
// the loop-freedom partial order, and assertions on the messages in flight.
func (s *System) properties(m *cmc.Model) {
	m.Invariant("NoRoutingLoop", s.noLoop)
	m.Invariant("RoutingTable", s.tables)
	if s.cfg.Order {
		m.Invariant("LoopFreedomOrder", s.order)
	}
	m.Invariant("WellFormedMessages", s.messages)
}

// noLoop follows the valid next hops towards every destination from every node: a chain that
// comes back to a node it passed is a routing loop, which AODV can never repair. It runs on every
// new state, so it looks each node's next hop up once per destination and follows chains through
// that table, in scratch space the System keeps (each instance of the model has its own).
func (s *System) noLoop() error {
	n := len(s.Routers)
	hops, chain := s.hops[:0], s.chain[:0]
	defer func() { s.hops, s.chain = hops, chain }()
	for d := range n {
		dest := NodeID(d)
		hops = hops[:0] // hops[a] is a's next hop towards dest, or -1
		for _, r := range s.Routers {
			next, ok := r.NextHop(dest)
			hops = append(hops, int(next))
			if !ok {
				hops[len(hops)-1] = -1
			}
		}
		for start := range n {
			chain = append(chain[:0], NodeID(start))
			for at := NodeID(start); at != dest; {
				h := hops[at]
				if h < 0 {
					break
				}
				next := NodeID(h)
				if i := slices.Index(chain, next); i >= 0 {
					return fmt.Errorf("routing loop towards %v: %s", dest, path(append(chain[i:], next)))
				}
				chain = append(chain, next)
				at = next
			}
		}
	}
	return nil
}

// tables checks each routing table: at most one entry per destination, none for the node itself
// (so no self route with a hop count other than 0), and a hop count that is infinity or less
// than the number of nodes.
func (s *System) tables() error {
	for _, r := range s.Routers {
		if err := r.CheckTable(); err != nil {
			return err
		}
		for _, rt := range r.routes {
			if rt.Hops != Infinity && int(rt.Hops) >= len(s.Routers) {
				return fmt.Errorf("node %v: route %v: hop count %d is not less than the %d nodes", r.ID(), rt, rt.Hops, len(s.Routers))
			}
		}
	}
	return nil
}

// order checks the partial order that makes AODV loop-free (thesis section 4.2): when b is a's
// next hop to d, b's route to d is newer, or as new and shorter.
func (s *System) order() error {
	for _, a := range s.Routers {
		for _, ra := range a.routes {
			if !ra.Valid || ra.NextHop == ra.Dest {
				continue
			}
			b := s.Routers[ra.NextHop]
			rb := b.route(ra.Dest)
			if rb == nil || !rb.ValidSeq || !ra.ValidSeq {
				continue
			}
			if !(SeqNewer(rb.Seq, ra.Seq) || (rb.Seq == ra.Seq && rb.Valid && rb.Hops < ra.Hops)) {
				return fmt.Errorf("%v routes to %v via %v with (seq %d, hops %d), but %v has (seq %d, hops %d)",
					a.ID(), ra.Dest, b.ID(), ra.Seq, ra.Hops, b.ID(), rb.Seq, rb.Hops)
			}
		}
	}
	return nil
}

// messages checks every message in flight is well formed; a hop count of infinity never travels.
func (s *System) messages() error {
	for i := range s.Air.Pending {
		p := &s.Air.Pending[i]
		if err := p.Msg.Validate(); err != nil {
			return fmt.Errorf("message %v from %v to %v: %w", p.Msg, p.From, p.To, err)
		}
		if p.Msg.HopCount == Infinity {
			return fmt.Errorf("message %v from %v to %v carries hop count infinity", p.Msg, p.From, p.To)
		}
	}
	return nil
}
