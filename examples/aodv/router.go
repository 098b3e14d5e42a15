package aodv

import (
	"errors"
	"fmt"
)

// Config is a router's configuration: fixed for its life, so not part of its state.
// Zero durations take RFC 3561's defaults (section 10), in ticks of a millisecond.
type Config struct {
	// SpecRERRBug selects the route error rule of RFC 3561 as it stood when CMC checked it: a
	// node copies the sequence number of an RERR from its next hop into its route without
	// asking whether it is newer, so a reordered, stale RERR turns the route's clock back and
	// can close a routing loop (CMC thesis, section 4.6.5, Figure 4.8). False is the fix: only
	// a strictly newer sequence number is adopted, and an RERR that is not newer is ignored.
	SpecRERRBug bool

	DestinationOnly bool // set D in our RREQs: only the destination may answer
	Gratuitous      bool // set G in our RREQs: an intermediate replier also tells the destination

	ActiveRouteTimeout Time  // ACTIVE_ROUTE_TIMEOUT, default 3000
	MyRouteTimeout     Time  // MY_ROUTE_TIMEOUT, lifetime in our own RREPs, default 2 * ActiveRouteTimeout
	NodeTraversalTime  Time  // NODE_TRAVERSAL_TIME, default 40
	NetDiameter        uint8 // NET_DIAMETER, the most hops an RREQ travels, default 35
	PathDiscoveryTime  Time  // PATH_DISCOVERY_TIME, how long a seen RREQ is remembered, default 2 * NetTraversalTime
	DeletePeriod       Time  // DELETE_PERIOD, how long invalid routes and a reboot's wait last, default 5 * ActiveRouteTimeout
}

// NetTraversalTime is NET_TRAVERSAL_TIME: the longest an RREQ and its reply take across the network.
func (c Config) NetTraversalTime() Time {
	return 2 * c.NodeTraversalTime * Time(c.NetDiameter)
}

func (c Config) withDefaults() Config {
	if c.ActiveRouteTimeout == 0 {
		c.ActiveRouteTimeout = 3000
	}
	if c.MyRouteTimeout == 0 {
		c.MyRouteTimeout = 2 * c.ActiveRouteTimeout
	}
	if c.NodeTraversalTime == 0 {
		c.NodeTraversalTime = 40
	}
	if c.NetDiameter == 0 {
		c.NetDiameter = 35
	}
	if c.PathDiscoveryTime == 0 {
		c.PathDiscoveryTime = 2 * c.NetTraversalTime()
	}
	if c.DeletePeriod == 0 {
		c.DeletePeriod = 5 * c.ActiveRouteTimeout
	}
	return c
}

// Router is one node's AODV routing daemon. Every method is one atomic event: it runs to the end,
// sends what it must through the Link, and returns; no goroutines, timers or hidden clocks. The
// fields not tagged cmc:"-" are the node's whole state, as a model checker captures it.
type Router struct {
	id      NodeID
	seq     uint32     // own sequence number
	rreqID  uint32     // id of the last RREQ this node originated
	routes  []Route    // sorted by Dest, at most one entry each
	seen    []seenRREQ // RREQs already handled, sorted by (Orig, ID)
	waiting bool       // rebooted and waiting out DELETE_PERIOD (RFC 3561 section 6.13)
	waitEnd Time       // when the wait ends on a running clock
	broken  []NodeID   // links found broken during the current event; empty between events

	cfg   Config `cmc:"-"`
	link  Link   `cmc:"-"`
	clock Clock  `cmc:"-"`
	alloc Alloc  `cmc:"-"`
}

// New returns a freshly booted router with an empty table. A first boot needs no wait: no one
// can be routing through a node that never ran.
func New(id NodeID, cfg Config, link Link, clock Clock, alloc Alloc) *Router {
	return &Router{id: id, cfg: cfg.withDefaults(), link: link, clock: clock, alloc: alloc}
}

// SetEnv attaches the environment again, as a checker does after restoring a captured state.
func (r *Router) SetEnv(link Link, clock Clock, alloc Alloc) {
	r.link, r.clock, r.alloc = link, clock, alloc
}

// SetConfig sets the configuration again, defaults filled in. Config is tagged cmc:"-" like the
// environment, so a checker that recreates a Router from captured state must restore it too.
func (r *Router) SetConfig(cfg Config) {
	r.cfg = cfg.withDefaults()
}

// ID returns the router's address.
func (r *Router) ID() NodeID { return r.id }

// OwnSeq returns the router's own sequence number, the freshness of routes to it.
func (r *Router) OwnSeq() uint32 { return r.seq }

// RREQID returns the id of the last RREQ the router originated.
func (r *Router) RREQID() uint32 { return r.rreqID }

// Waiting reports whether the router is waiting after a reboot and so sends nothing.
func (r *Router) Waiting() bool { return r.waiting }

// Config returns the configuration with defaults filled in.
func (r *Router) Config() Config { return r.cfg }

// Receive handles one AODV message heard from neighbour from. It returns an error, wrapping
// ErrMalformed, only when the message is refused as malformed; every protocol decision,
// including dropping a duplicate or a reply that can go no further, returns nil.
func (r *Router) Receive(from NodeID, m Message) error {
	if err := r.check(from, m); err != nil {
		return fmt.Errorf("node %v: receive %v from %v: %w", r.id, m.Type, from, err)
	}
	if from == r.id {
		return nil // our own broadcast looped back
	}
	if r.waiting {
		r.receiveWhileWaiting(m)
		return nil
	}
	switch m.Type {
	case TypeRREQ:
		r.recvRREQ(from, m)
	case TypeRREP:
		r.recvRREP(from, m)
	case TypeRERR:
		r.recvRERR(from, m)
	}
	r.settle()
	return nil
}

// check refuses messages no correct AODV node sends: badly formed ones, and ones whose zero hop
// count claims a sender that did not send them.
func (r *Router) check(from NodeID, m Message) error {
	if err := m.Validate(); err != nil {
		return err
	}
	switch {
	case m.Type == TypeRREQ && m.HopCount == 0 && from != m.Orig:
		return fmt.Errorf("%w: rreq with hop count 0 relayed by %v, not its originator %v", ErrMalformed, from, m.Orig)
	case m.Type == TypeRREP && m.HopCount == 0 && from != m.Dest:
		return fmt.Errorf("%w: rrep with hop count 0 sent by %v, not its destination %v", ErrMalformed, from, m.Dest)
	}
	return nil
}

func (r *Router) now() Time { return r.clock.Now() }

// newMessage gets a zeroed buffer from the allocator.
func (r *Router) newMessage() (*Message, error) {
	m, err := r.alloc.NewMessage()
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, ErrNoBuffer
	}
	*m = Message{} // a pool may hand back a used buffer
	return m, nil
}

// unicast sends m to neighbour to. A send the link reports as ErrLinkDown is link-layer feedback
// that the link is broken (RFC 3561 section 6.11, case (i)); the break is handled once the
// current event has finished with the routing table, by settle. Any other failure loses m, as
// the network might.
func (r *Router) unicast(to NodeID, m *Message) error {
	err := r.link.Send(to, *m)
	if err != nil && errors.Is(err, ErrLinkDown) {
		r.broken = append(r.broken, to)
	}
	return err
}

// broadcast sends m to all neighbours. A failure loses m: AODV recovers from lost floods by
// the originator asking again.
func (r *Router) broadcast(m *Message) error {
	return r.link.Broadcast(*m)
}

// settle handles the links found broken during the current event. A break can send an RERR
// whose unicast finds another broken link; each break invalidates at least one route before it
// sends anything, so the work list runs dry.
func (r *Router) settle() {
	for len(r.broken) > 0 {
		n := r.broken[0]
		r.broken = r.broken[1:]
		r.breakLink(n)
	}
	r.broken = nil
}
