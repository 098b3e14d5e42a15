package aodv

import "slices"

// The router's timeouts are events, not goroutines. On a network, call Tick often enough and it
// fires whatever the clock says is due. Under a model checker the clock is constant and the
// timeouts are nondeterministic events of their own (CMC thesis, section 4.5): ExpireRoute,
// ExpireRREQ and EndRebootWait each do what one timeout running out would.

// Tick fires every timeout that is due by the clock: valid routes past their lifetime expire,
// invalid routes past DELETE_PERIOD are deleted, seen RREQs past PATH_DISCOVERY_TIME are
// forgotten, and the wait after a reboot ends.
func (r *Router) Tick() {
	now := r.now()
	for i := range r.routes {
		if rt := &r.routes[i]; rt.Valid && rt.Expiry <= now {
			r.expire(rt, now)
		}
	}
	r.routes = slices.DeleteFunc(r.routes, func(rt Route) bool { return !rt.Valid && rt.Expiry <= now })
	r.seen = slices.DeleteFunc(r.seen, func(s seenRREQ) bool { return s.Expiry <= now })
	r.routes, r.seen = nilIfEmpty(r.routes), nilIfEmpty(r.seen)
	if r.waiting && r.waitEnd <= now {
		r.EndRebootWait()
	}
}

// ExpireRoute invalidates the valid route to dest as its lifetime running out would, and
// reports whether there was one.
func (r *Router) ExpireRoute(dest NodeID) bool {
	rt := r.activeRoute(dest)
	if rt == nil {
		return false
	}
	r.expire(rt, r.now())
	return true
}

// expire invalidates a route whose lifetime ran out. Like a break it increments the sequence
// number (RFC 3561 section 6.1 lets a node change it when "the path towards the destination node
// expires or breaks"), so the next RREQ asks for a route fresher than any that went through this
// node. No RERR is sent: the RFC sends one for breaks and errors, not for routes that were
// simply unused; precursors' routes, no more used than ours, expire on their own.
func (r *Router) expire(rt *Route, now Time) {
	r.invalidate(rt, true, now)
}

// ExpireRREQ forgets that RREQ id from orig was handled, as PATH_DISCOVERY_TIME running out
// would, and reports whether it was remembered.
func (r *Router) ExpireRREQ(orig NodeID, id uint32) bool {
	i, ok := r.findSeen(orig, id)
	if ok {
		r.seen = nilIfEmpty(slices.Delete(r.seen, i, i+1))
	}
	return ok
}

// nilIfEmpty keeps "no elements" one state: a checker tells a nil slice from an empty one.
func nilIfEmpty[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}
