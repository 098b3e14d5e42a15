package aodv

import "slices"

// LinkBroken tells the router that its link to neighbor is gone, as a missed Hello, a
// link-layer failure or the environment says (RFC 3561 section 6.11, case (i)).
func (r *Router) LinkBroken(neighbor NodeID) {
	r.breakLink(neighbor)
	r.settle()
}

// breakLink invalidates every valid route whose next hop is the lost neighbour, incrementing
// their sequence numbers, and tells their precursors in one RERR.
func (r *Router) breakLink(neighbor NodeID) {
	now := r.now()
	var lost rerrBuilder
	for i := range r.routes {
		rt := &r.routes[i]
		if !rt.Valid || rt.NextHop != neighbor {
			continue
		}
		precursors := r.invalidate(rt, true, now)
		lost.add(rt.Dest, rt.Seq, slices.DeleteFunc(precursors, func(p NodeID) bool { return p == neighbor }))
	}
	r.sendRERR(&lost)
}

// recvRERR handles a route error heard from neighbour from (RFC 3561 section 6.11, case (iii)).
//
// This is where the specification bug CMC found lives (thesis section 4.6.5, Figure 4.8). For
// each listed destination whose valid route goes through from, the specification says to copy
// the RERR's sequence number into the route and invalidate it. If the RERR is stale, delayed and
// overtaken by a later reply that refreshed the route, the copy sets the route's sequence number
// back in time; the node then asks for, and accepts, a route no fresher than ones that lead
// through itself, and a loop forms. With Config.SpecRERRBug false the router only adopts a
// sequence number strictly newer than the one it holds, and otherwise ignores the entry, which
// was news about a route it has since replaced.
func (r *Router) recvRERR(from NodeID, m Message) {
	now := r.now()
	var lost rerrBuilder
	for _, u := range m.Unreachable {
		rt := r.activeRoute(u.Dest)
		if rt == nil || rt.NextHop != from {
			continue // not a route through the sender: its loss is not ours
		}
		if !r.cfg.SpecRERRBug && rt.ValidSeq && !SeqNewer(u.Seq, rt.Seq) {
			continue // stale: the fix
		}
		rt.Seq, rt.ValidSeq = u.Seq, true
		precursors := r.invalidate(rt, false, now)
		lost.add(rt.Dest, rt.Seq, precursors)
	}
	r.sendRERR(&lost)
}

// rerrBuilder collects the destinations of one RERR and the neighbours it must reach.
type rerrBuilder struct {
	unreachable []Unreachable
	to          []NodeID // sorted set
}

// add lists dest in the RERR if someone was using the route (RFC 3561 section 6.11: an RERR
// names the unreachable destinations with non-empty precursor lists).
func (b *rerrBuilder) add(dest NodeID, seq uint32, precursors []NodeID) {
	if len(precursors) == 0 {
		return
	}
	b.unreachable = append(b.unreachable, Unreachable{Dest: dest, Seq: seq})
	for _, p := range precursors {
		if i, ok := slices.BinarySearch(b.to, p); !ok {
			b.to = slices.Insert(b.to, i, p)
		}
	}
}

// sendRERR sends the collected RERR: unicast when a single neighbour needs it, broadcast
// otherwise (RFC 3561 section 6.11). AODV does not retransmit RERRs, so a failed allocation or
// send leaves the precursors to find out by their own timeouts or link breaks.
func (r *Router) sendRERR(b *rerrBuilder) {
	if len(b.unreachable) == 0 {
		return
	}
	m, err := r.newMessage()
	if err != nil {
		return
	}
	*m = Message{Type: TypeRERR, Unreachable: b.unreachable}
	if len(b.to) == 1 {
		_ = r.unicast(b.to[0], m)
		return
	}
	_ = r.broadcast(m)
}
