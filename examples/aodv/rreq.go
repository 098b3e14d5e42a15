package aodv

import (
	"cmp"
	"fmt"
	"slices"
)

// seenRREQ is an RREQ already handled, kept for PATH_DISCOVERY_TIME so that copies of the flood
// arriving by other paths are dropped (RFC 3561 section 6.3).
type seenRREQ struct {
	Orig   NodeID
	ID     uint32
	Expiry Time
}

func (s seenRREQ) before(t seenRREQ) bool {
	return cmp.Or(cmp.Compare(s.Orig, t.Orig), cmp.Compare(s.ID, t.ID)) < 0
}

func (r *Router) findSeen(orig NodeID, id uint32) (int, bool) {
	return slices.BinarySearchFunc(r.seen, seenRREQ{Orig: orig, ID: id}, func(s, t seenRREQ) int {
		return cmp.Or(cmp.Compare(s.Orig, t.Orig), cmp.Compare(s.ID, t.ID))
	})
}

// HasSeen reports whether the router remembers handling RREQ id from orig.
func (r *Router) HasSeen(orig NodeID, id uint32) bool {
	_, ok := r.findSeen(orig, id)
	return ok
}

func (r *Router) remember(orig NodeID, id uint32, now Time) {
	s := seenRREQ{Orig: orig, ID: id, Expiry: now + r.cfg.PathDiscoveryTime}
	if i, ok := r.findSeen(orig, id); ok {
		r.seen[i] = s
	} else {
		r.seen = slices.Insert(r.seen, i, s)
	}
}

// RequestRoute starts a route discovery for dest, as an application does when it has a packet
// for a destination without a valid route (RFC 3561 section 6.3). With a valid route it does
// nothing. Retries and their back-off are the caller's: it calls again when its timer says so.
// An error means no RREQ left this node; the router's state is then unchanged unless the
// broadcast itself failed, in which case the sequence number and RREQ id stay spent.
func (r *Router) RequestRoute(dest NodeID) error {
	switch {
	case dest == r.id:
		return fmt.Errorf("node %v: request route to %v: %w", r.id, dest, ErrSelf)
	case r.waiting:
		return fmt.Errorf("node %v: request route to %v: %w", r.id, dest, ErrRebootWait)
	case r.activeRoute(dest) != nil:
		return nil
	}
	m, err := r.newMessage()
	if err != nil {
		return fmt.Errorf("node %v: request route to %v: allocate rreq: %w", r.id, dest, err)
	}
	// RFC 3561 section 6.1: increment our own sequence number just before a route discovery,
	// so that the reverse routes the flood sets up are newer than any others to us.
	r.seq++
	r.rreqID++
	r.remember(r.id, r.rreqID, r.now())
	*m = Message{Type: TypeRREQ, RREQID: r.rreqID, Dest: dest, Orig: r.id, OrigSeq: r.seq}
	// The last sequence number we knew for dest, valid route or not, asks for a route at
	// least that fresh: after a break, that excludes every route through us.
	if rt := r.route(dest); rt != nil && rt.ValidSeq {
		m.DestSeq = rt.Seq
	} else {
		m.Flags |= FlagUnknownSeq
	}
	if r.cfg.DestinationOnly {
		m.Flags |= FlagDestOnly
	}
	if r.cfg.Gratuitous {
		m.Flags |= FlagGratuitous
	}
	if err := r.broadcast(m); err != nil {
		return fmt.Errorf("node %v: request route to %v: broadcast rreq: %w", r.id, dest, err)
	}
	return nil
}

// recvRREQ handles a route request heard from neighbour from (RFC 3561 section 6.5).
func (r *Router) recvRREQ(from NodeID, m Message) {
	now := r.now()
	if m.Orig == r.id || r.HasSeen(m.Orig, m.RREQID) {
		r.touchNeighbor(from, now)
		return
	}
	r.remember(m.Orig, m.RREQID, now)
	hops := m.HopCount + 1
	if hops == Infinity {
		r.touchNeighbor(from, now)
		return
	}
	// The reverse route, for the reply to travel back on. RFC 3561 section 6.5 overwrites its
	// next hop and hop count unconditionally; that can point a route through a neighbour holding
	// an older sequence number than ours and close a loop, so the reverse route obeys the same
	// freshness rule as every other route. A stale RREQ then leaves the entry as it was.
	r.offer(m.Orig, m.OrigSeq, hops, from, now+r.reverseLifetime(hops))
	// Only after the offer: when from is the originator, the offer already made the one-hop
	// route, and touching first would make the offer look stale.
	r.touchNeighbor(from, now)

	switch {
	case m.Dest == r.id:
		r.replyAsDestination(m)
	case r.canReply(m):
		r.replyAsIntermediate(m)
	default:
		r.forwardRREQ(m, hops)
	}
}

// reverseLifetime is the MinimalLifetime of RFC 3561 section 6.5: long enough for a reply from
// the far side of the network to come back along the reverse route.
func (r *Router) reverseLifetime(hops uint8) Time {
	t := 2*r.cfg.NetTraversalTime() - 2*Time(hops)*r.cfg.NodeTraversalTime
	return max(t, r.cfg.NodeTraversalTime)
}

// canReply reports whether this node, not the destination, may answer m from its own table
// (RFC 3561 section 6.6): it has a valid route whose known sequence number is at least as new
// as the one asked for, and the originator did not insist on the destination answering.
func (r *Router) canReply(m Message) bool {
	rt := r.activeRoute(m.Dest)
	if rt == nil || !rt.ValidSeq || m.Flags&FlagDestOnly != 0 {
		return false
	}
	return m.Flags&FlagUnknownSeq != 0 || !SeqNewer(m.DestSeq, rt.Seq)
}

// forwardRREQ rebroadcasts m one hop further, asking for at least the freshest sequence number
// for the destination that this node knows of (RFC 3561 section 6.5).
func (r *Router) forwardRREQ(m Message, hops uint8) {
	if hops >= r.cfg.NetDiameter {
		return // the IP TTL of a real RREQ would have run out
	}
	out, err := r.newMessage()
	if err != nil {
		return // the flood goes on by other paths, or the originator asks again
	}
	*out = m
	out.HopCount = hops
	if rt := r.route(m.Dest); rt != nil && rt.ValidSeq {
		if m.Flags&FlagUnknownSeq != 0 || SeqNewer(rt.Seq, m.DestSeq) {
			out.DestSeq = rt.Seq
			out.Flags &^= FlagUnknownSeq
		}
	}
	_ = r.broadcast(out) // a lost broadcast is a lost packet; see broadcast
}
