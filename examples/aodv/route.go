package aodv

import (
	"fmt"
	"slices"
	"strings"
)

// Route is one routing table entry (RFC 3561 section 2). A router holds at most one per
// destination and none for itself: its own sequence number lives in the Router.
type Route struct {
	Dest     NodeID
	Seq      uint32 // destination sequence number: how fresh this route is
	ValidSeq bool   // false for a route learnt without a sequence number (to a neighbour heard directly)
	Hops     uint8  // Infinity when the route is invalid
	NextHop  NodeID
	Valid    bool
	// Expiry is when a valid route stops being usable, or when an invalid one is deleted.
	Expiry Time
	// Precursors are the neighbours that route to Dest through this node and must hear an
	// RERR when the route breaks. Sorted, no duplicates, nil when empty.
	Precursors []NodeID
}

func (rt Route) clone() Route {
	rt.Precursors = slices.Clone(rt.Precursors)
	return rt
}

func (rt Route) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v via %v seq ", rt.Dest, rt.NextHop)
	if rt.ValidSeq {
		fmt.Fprintf(&b, "%d", rt.Seq)
	} else {
		b.WriteString("?")
	}
	if rt.Valid {
		fmt.Fprintf(&b, " hops %d valid", rt.Hops)
	} else {
		b.WriteString(" invalid")
	}
	if len(rt.Precursors) > 0 {
		fmt.Fprintf(&b, " prec %v", rt.Precursors)
	}
	return b.String()
}

// fresher reports whether a route with sequence number seq and hop count hops should replace rt.
// This is the single update rule of RFC 3561 sections 6.2 and 6.7, used for every route the
// router learns from a message: newer information wins, and at equal freshness a shorter route,
// or any route at all when rt is invalid. It is what keeps the tables loop-free: along any valid
// next-hop chain, sequence numbers never decrease and hop counts at equal sequence numbers
// strictly decrease.
func (rt *Route) fresher(seq uint32, hops uint8) bool {
	switch {
	case !rt.ValidSeq:
		return true
	case SeqNewer(seq, rt.Seq):
		return true
	case seq != rt.Seq:
		return false
	default:
		return !rt.Valid || hops < rt.Hops
	}
}

// find returns where the entry for dest is or would be in the sorted table, and whether it is
// there: slices.BinarySearchFunc's answer, searched by index, so no entry is copied to compare
// its destination (a model checker looks routes up several times per state).
func (r *Router) find(dest NodeID) (int, bool) {
	lo, hi := 0, len(r.routes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.routes[m].Dest < dest {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(r.routes) && r.routes[lo].Dest == dest
}

// route returns the entry for dest, or nil. The pointer is good until the table grows or shrinks.
func (r *Router) route(dest NodeID) *Route {
	if i, ok := r.find(dest); ok {
		return &r.routes[i]
	}
	return nil
}

// activeRoute returns the entry for dest if it is valid, or nil.
func (r *Router) activeRoute(dest NodeID) *Route {
	if rt := r.route(dest); rt != nil && rt.Valid {
		return rt
	}
	return nil
}

// entry returns the entry for dest, first inserting an invalid one that knows no sequence
// number if there is none. The table stays sorted by destination.
func (r *Router) entry(dest NodeID) *Route {
	i, ok := r.find(dest)
	if !ok {
		r.routes = slices.Insert(r.routes, i, Route{Dest: dest, Hops: Infinity})
	}
	return &r.routes[i]
}

// offer installs the route to dest via next, with sequence number seq and hop count hops, if it
// is fresher than the entry the table holds, and reports whether it did.
func (r *Router) offer(dest NodeID, seq uint32, hops uint8, next NodeID, expiry Time) bool {
	rt := r.entry(dest)
	if !rt.fresher(seq, hops) {
		return false
	}
	if rt.Valid {
		expiry = max(rt.Expiry, expiry)
	}
	rt.Seq, rt.ValidSeq, rt.Hops, rt.NextHop, rt.Valid, rt.Expiry = seq, true, hops, next, true, expiry
	return true
}

// touchNeighbor records that n was heard directly: the route to n becomes one hop via n. RFC 3561
// (sections 6.5, 6.7) creates this route "without a valid sequence number"; an entry that already
// knows one keeps it, since a route whose next hop is its destination cannot close a loop.
func (r *Router) touchNeighbor(n NodeID, now Time) {
	rt := r.entry(n)
	expiry := now + r.cfg.ActiveRouteTimeout
	if rt.Valid {
		expiry = max(rt.Expiry, expiry)
	}
	rt.Hops, rt.NextHop, rt.Valid, rt.Expiry = 1, n, true, expiry
}

// invalidate marks rt invalid as RFC 3561 section 6.11 says: the sequence number goes up by one if
// bump is set and it is known (a link break or expiry: the route is now older than anything the
// destination will issue next), the hop count becomes infinity, and the entry is kept for
// DELETE_PERIOD so its sequence number is remembered. It returns the precursors, who were using
// the route and are forgotten here because the caller tells them.
func (r *Router) invalidate(rt *Route, bump bool, now Time) []NodeID {
	if bump && rt.ValidSeq {
		rt.Seq++
	}
	p := rt.Precursors
	rt.Valid, rt.Hops, rt.Expiry, rt.Precursors = false, Infinity, now+r.cfg.DeletePeriod, nil
	return p
}

// addPrecursor records that neighbour p routes to dest through this node.
func (r *Router) addPrecursor(dest, p NodeID) {
	rt := r.route(dest)
	if rt == nil || p == r.id {
		return
	}
	if i, ok := slices.BinarySearch(rt.Precursors, p); !ok {
		rt.Precursors = slices.Insert(rt.Precursors, i, p)
	}
}

// Routes returns a copy of the routing table, sorted by destination.
func (r *Router) Routes() []Route {
	if len(r.routes) == 0 {
		return nil
	}
	out := make([]Route, len(r.routes))
	for i, rt := range r.routes {
		out[i] = rt.clone()
	}
	return out
}

// Route returns a copy of the entry for dest, valid or not.
func (r *Router) Route(dest NodeID) (Route, bool) {
	if rt := r.route(dest); rt != nil {
		return rt.clone(), true
	}
	return Route{}, false
}

// NextHop returns the neighbour to forward a packet for dest to, if the route is valid.
func (r *Router) NextHop(dest NodeID) (NodeID, bool) {
	if rt := r.activeRoute(dest); rt != nil {
		return rt.NextHop, true
	}
	return 0, false
}

// CheckTable reports the first way the router's state breaks the routing table rules of the CMC
// thesis (Table 4.2) and this package's own: one sorted entry per destination, no route to self,
// a valid route has a finite non-zero hop count and an invalid one an infinite count, a one-hop
// route leads straight to its destination, precursor and seen lists are sorted sets. A checker
// can call it as an invariant after every step; tests call it after every delivery.
func (r *Router) CheckTable() error {
	for i, rt := range r.routes {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("node %v: route %v: %s", r.id, rt, fmt.Sprintf(format, args...))
		}
		switch {
		case i > 0 && r.routes[i-1].Dest >= rt.Dest:
			return bad("table not sorted by destination or holds two entries for it")
		case rt.Dest == r.id:
			return bad("route to self")
		case rt.Valid && (rt.Hops == 0 || rt.Hops == Infinity):
			return bad("valid route with hop count %d", rt.Hops)
		case rt.Valid && rt.NextHop == r.id:
			return bad("next hop is self")
		case rt.Valid && rt.Hops == 1 && rt.NextHop != rt.Dest:
			return bad("one-hop route through another node")
		case !rt.Valid && rt.Hops != Infinity:
			return bad("invalid route with finite hop count %d", rt.Hops)
		case rt.Precursors != nil && len(rt.Precursors) == 0:
			return bad("empty precursor list is not nil")
		}
		for j, p := range rt.Precursors {
			if p == r.id || (j > 0 && rt.Precursors[j-1] >= p) {
				return bad("precursors %v not a sorted set without self", rt.Precursors)
			}
		}
	}
	for i := 1; i < len(r.seen); i++ {
		if !r.seen[i-1].before(r.seen[i]) {
			return fmt.Errorf("node %v: seen rreq list not a sorted set at %v", r.id, r.seen[i])
		}
	}
	if r.broken != nil {
		return fmt.Errorf("node %v: broken-link worklist %v not drained", r.id, r.broken)
	}
	return nil
}
