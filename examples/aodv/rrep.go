package aodv

import "math"

// replyAsDestination answers an RREQ for this node (RFC 3561 section 6.6.1).
func (r *Router) replyAsDestination(m Message) {
	// Section 6.1: the destination's sequence number becomes at least the one asked for, so
	// the reply is fresher than any route the originator has given up on.
	if m.Flags&FlagUnknownSeq == 0 && SeqNewer(m.DestSeq, r.seq) {
		r.seq = m.DestSeq
	}
	rev := r.activeRoute(m.Orig)
	if rev == nil {
		return // a stale RREQ that did not set up a reverse route: nowhere to send the reply
	}
	next := rev.NextHop
	out, err := r.newMessage()
	if err != nil {
		return // the originator times out and asks again
	}
	*out = Message{
		Type:     TypeRREP,
		Dest:     r.id,
		DestSeq:  r.seq,
		Orig:     m.Orig,
		Lifetime: lifetime(r.cfg.MyRouteTimeout),
	}
	_ = r.unicast(next, out) // a failure is handled by unicast
}

// replyAsIntermediate answers an RREQ from this node's own valid route to its destination
// (RFC 3561 section 6.6.2), and with the G flag also tells the destination of the originator
// (section 6.6.3).
func (r *Router) replyAsIntermediate(m Message) {
	fwd, rev := r.activeRoute(m.Dest), r.activeRoute(m.Orig)
	if fwd == nil || rev == nil {
		return
	}
	now := r.now()
	toOrig, toDest := rev.NextHop, fwd.NextHop
	out, err := r.newMessage()
	if err != nil {
		return
	}
	*out = Message{
		Type:     TypeRREP,
		HopCount: fwd.Hops,
		Dest:     m.Dest,
		DestSeq:  fwd.Seq,
		Orig:     m.Orig,
		Lifetime: lifetime(fwd.Expiry - now),
	}
	// The neighbour we answer will route to the destination through us, and the next hop to
	// the destination may come to route to the originator through us.
	r.addPrecursor(m.Dest, toOrig)
	r.addPrecursor(m.Orig, toDest)
	if m.Flags&FlagGratuitous != 0 {
		if g, err := r.newMessage(); err == nil {
			*g = Message{
				Type:     TypeRREP,
				HopCount: rev.Hops,
				Dest:     m.Orig,
				DestSeq:  rev.Seq,
				Orig:     m.Dest,
				Lifetime: lifetime(rev.Expiry - now),
			}
			_ = r.unicast(toDest, g)
		}
	}
	_ = r.unicast(toOrig, out)
}

// recvRREP handles a route reply heard from neighbour from (RFC 3561 section 6.7): it sets up
// the forward route to the replied-for destination and passes the reply on towards the
// originator, but only if the reply improved the route; a stale or duplicate reply stops here.
func (r *Router) recvRREP(from NodeID, m Message) {
	now := r.now()
	if m.Dest == r.id {
		r.touchNeighbor(from, now) // someone offers us a route to ourselves
		return
	}
	hops := m.HopCount + 1
	if hops == Infinity {
		r.touchNeighbor(from, now)
		return
	}
	updated := r.offer(m.Dest, m.DestSeq, hops, from, now+Time(m.Lifetime))
	r.touchNeighbor(from, now) // after the offer, as in recvRREQ
	if m.Orig == r.id || m.Orig == m.Dest || !updated {
		// Our discovery is answered, or it was a Hello (section 6.9: Orig = Dest = sender),
		// or there is nothing new to pass on.
		return
	}
	// CMC found implementations that assumed the reverse route was still there (thesis
	// section 4.6.2) or still valid (Figure 4.6(b)); after a reboot or a break it need not be.
	rev := r.activeRoute(m.Orig)
	if rev == nil {
		return
	}
	rev.Expiry = max(rev.Expiry, now+r.cfg.ActiveRouteTimeout)
	toOrig := rev.NextHop
	out, err := r.newMessage()
	if err != nil {
		return
	}
	*out = m
	out.HopCount = hops
	r.addPrecursor(m.Dest, toOrig) // toOrig will route to Dest through us
	r.addPrecursor(m.Orig, from)   // and from may route to Orig through us
	r.addPrecursor(from, toOrig)   // section 6.7: the route to the next hop towards Dest too
	_ = r.unicast(toOrig, out)
}

// lifetime converts a span of ticks to an RREP's 32-bit Lifetime field, clamping.
func lifetime(t Time) uint32 {
	return uint32(min(max(t, 0), math.MaxUint32))
}
