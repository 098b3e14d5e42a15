package aodv

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
)

// This file, air.go and invariants.go are the checker's harness: the model of the thesis's Table
// 4.1 built around unchanged router code. The router itself imports nothing of the checker.
//
// The state space of AODV is infinite and, even bounded as the thesis bounded it, too large for
// breadth-first search: the thesis's ran out of resources. These modelling decisions make the
// breadth-first search find the shortest loop of the specification's RERR rule, and exhaust the
// fixed rule, each in a few million states. None removes a step of the loop, and each is a
// decision the thesis also made or a bound stated in the parameters; docs/aodv.md argues each.
//
//   - One destination (parameter dest, default the last node, D): the other nodes request routes
//     to it, as in a network with one gateway. A loop is a cycle of next hops towards one
//     destination. A request for another destination makes routes to it, which no rule about
//     routes to D reads, and routes back to its originator, which requests for D make as well;
//     the only route to D it can change is a one-hop route made by hearing D, which cannot be on
//     a loop. Routes to the requesting nodes still form (replies travel back on them), and the
//     invariants check them too.
//   - Route timeouts and link failures are events only where they matter: a node's valid route to
//     the destination times out, and a node's link fails where its valid route to the destination
//     uses it (the failure then invalidates every route through that neighbour, and sends RERRs,
//     as it would). Routes to the requesters never time out or break on their own; a reply that
//     cannot travel back is what that would cause, and a lost reply is modelled.
//   - Time is abstract (thesis, section 4.5): the clock is constant, timeouts are events, and
//     after every event the harness sets the time fields of the state (route and seen-RREQ expiry
//     times, the end of a reboot wait, an RREP's lifetime) to zero. Under a constant clock they
//     decide nothing (only Tick reads them, and the model does not call it); they only flow into
//     one another, so states that differ in them alone behave alike, and merging them is exact.
//   - A broadcast is one packet in the air, heard by one neighbour (parameter hear, see Air), as
//     we read the thesis's single shared queue. With one copy per neighbour (copies) and the bound
//     of 3, a broadcast of 4 nodes reaches the last node only through an empty air, so no route
//     request can reach D while the stale RERR is in flight, and the loop is unreachable.
//   - A node requests a route again only once its previous RREQ is out of the air: RFC 3561
//     section 6.3 retries a discovery after NET_TRAVERSAL_TIME, when the flood is over. A late
//     reply may still be in flight.
//   - Bounds, as the thesis cut states beyond bounds: each node originates at most rreq RREQs,
//     all nodes together at most requests; the destination's sequence number, and every one held
//     or carried for it, is at most seq; and the environment injects at most faults faults, a
//     fault being a lost packet, a route timeout or a link failure.

// ModelConfig bounds the model, as the thesis bounds its state space (section 4.5).
type ModelConfig struct {
	Nodes     int      // 2 to 4, fully connected
	Queue     int      // the air holds at most this many packets (a broadcast is one)
	Dest      int      // the destination the others request routes to; -1: each node to every other
	MaxSeq    int      // states with a larger sequence number of a destination are cut
	MaxRREQ   int      // each node originates at most this many RREQs (ids 1 to MaxRREQ)
	Requests  int      // all nodes together originate at most this many RREQs; -1: no bound
	Faults    int      // at most this many lost packets, route timeouts and link failures; -1: no bound
	Hear      int      // at most this many neighbours hear one broadcast (see Air)
	Copies    bool     // a broadcast is one copy per neighbour instead of one packet in the air
	AllocFail bool     // a message buffer allocation may fail
	SendFail  bool     // a send may fail at the interface
	Order     bool     // check the loop-freedom partial order on every next-hop pair
	Reboot    bool     // nodes may reboot
	Forget    bool     // seen RREQs are forgotten once their flood is over (for long random walks)
	Bug       bool     // the specification's unguarded RERR rule
	Links     [][]bool // the topology (see Air.Links); nil: complete
}

// System is the checked system: the routers, the air between them, and the faults injected.
type System struct {
	Routers []*Router
	Air     *Air
	Faults  *Faults
	cfg     ModelConfig
	dests   []NodeID // the destinations routes are requested to
	// hops and chain are noLoop's scratch space, kept between states.
	hops  []int
	chain []NodeID
}

// Faults counts the faults the environment has injected: lost packets, route timeouts and link
// failures. It is state, so that the budget (ModelConfig.Faults) bounds every run.
type Faults struct {
	Injected int
}

// NewModel builds the AODV model of the thesis (section 4.4): nodes running the router, one
// bounded unordered channel that may lose packets, and the events of Table 4.1, shaped and bounded
// as the comment at the top of this file says.
// Each guide adds declarations that read the system (a best-first search's score, scenarios: see
// scale.go) before the model is returned.
func NewModel(name string, cfg ModelConfig, guides ...func(*cmc.Model, *System)) *cmc.Model {
	s := &System{cfg: cfg, Air: &Air{Bound: cfg.Queue, Hear: cfg.Hear, Copies: cfg.Copies, Links: cfg.Links}, Faults: &Faults{}}
	m := cmc.NewModel(name)
	m.Environment("net", s.Air)
	m.Environment("faults", s.Faults)
	for i := range cfg.Nodes {
		s.Air.Nodes = append(s.Air.Nodes, NodeID(i))
		if cfg.Dest < 0 || cfg.Dest == i {
			s.dests = append(s.dests, NodeID(i))
		}
	}
	for i := range cfg.Nodes {
		id := NodeID(i)
		r := New(id, Config{SpecRERRBug: cfg.Bug}, &link{s: s, from: id}, constClock{}, &alloc{fail: cfg.AllocFail})
		s.Routers = append(s.Routers, r)
		p := m.Process(id.String(), r)
		for _, dest := range s.dests {
			if dest == id {
				continue
			}
			// Table 4.1: a node with an invalid or no route initiates a route request, within the
			// bounds, and once its last flood is over.
			p.On("request "+dest.String(), func() { defer s.after(r, s.before(r)); r.RequestRoute(dest) },
				cmc.When(func() bool { return s.mayRequest(r, dest) }))
			// A valid route times out (time is abstract: the clock is a constant).
			p.On("timeout "+dest.String(), func() { defer s.after(r, s.before(r)); s.fault(); r.ExpireRoute(dest) },
				cmc.When(func() bool { _, ok := r.NextHop(dest); return ok && s.mayFault() }))
		}
		// A pending message is received (which one, and whether it is lost, are choices).
		p.On("receive", func() {
			defer s.after(r, s.before(r))
			pk, ok := s.Air.Receive(id, s.mayFault())
			if !ok { // lost: the event is enabled only when a packet for id is in the air
				s.fault()
				return
			}
			err := r.Receive(pk.From, pk.Msg)
			cmc.Assert(err == nil, "%v", err)
		}, cmc.When(func() bool { return s.Air.Waiting(id) }))
		for n := range cfg.Nodes {
			nb := NodeID(n)
			if nb == id || !slices.ContainsFunc(s.dests, func(d NodeID) bool { return d != id }) {
				continue // a destination without routes to other destinations has no link to lose
			}
			// A link failure is detected, where a route to a destination uses the link.
			p.On("link to "+nb.String()+" fails", func() { defer s.after(r, s.before(r)); s.fault(); r.LinkBroken(nb) },
				cmc.When(func() bool { return s.routesVia(r, nb, true) && s.mayFault() }))
		}
		if cfg.Forget {
			// PATH_DISCOVERY_TIME runs out for the RREQs whose flood is over. Under the bounds the
			// seen list is bounded and this only adds states; without them (a long random walk)
			// the list would grow with every request.
			p.On("path discovery time ends", func() { defer s.after(r, s.before(r)); s.forgetFloods(r) },
				cmc.When(func() bool { return slices.ContainsFunc(r.seen, s.floodOver) }))
		}
		if cfg.Reboot {
			p.On("reboot", func() { defer s.after(r, s.before(r)); r.Reboot() })
			// DELETE_PERIOD after a reboot runs out: only once no one routes through the node and
			// nothing it sent before is in flight, the RFC's timing argument (section 6.13).
			p.On("reboot wait ends", func() { defer s.after(r, s.before(r)); r.EndRebootWait() },
				cmc.When(func() bool { return r.Waiting() && s.forgotten(id) }))
		}
	}
	s.properties(m)
	m.Constraint("bounds", s.withinBounds)
	// A router's tables are sorted and hold one entry per key: name entries by key, so a new
	// route to A shows as one route added, not the route to D changing into it.
	m.Key(cmc.TypeName[Router](), "routes", "Dest")
	m.Key(cmc.TypeName[Router](), "seen", "Orig", "ID")
	for _, g := range guides {
		g(m, s)
	}
	return m
}

func init() {
	for _, v := range []struct {
		name string
		bug  bool
	}{{"AODVSpecBug", true}, {"AODV", false}} {
		cmc.Register(v.name, func(p *cmc.Params) *cmc.Model {
			cfg := ModelConfig{
				Nodes: p.Int("nodes", 4), Queue: p.Int("queue", 3),
				MaxSeq: p.Int("seq", 1), MaxRREQ: p.Int("rreq", 2), Requests: p.Int("requests", 3),
				Faults: p.Int("faults", 1), Hear: p.Int("hear", 1), Copies: p.Bool("copies", false),
				AllocFail: p.Bool("allocfail", false), SendFail: p.Bool("sendfail", false),
				Order: p.Bool("order", !v.bug), Reboot: p.Bool("reboot", false), Forget: p.Bool("forget", false),
				Bug: v.bug,
			}
			cfg.Dest = p.Int("dest", cfg.Nodes-1)
			switch {
			case cfg.Nodes < 2 || cfg.Nodes > 4:
				p.Fail("parameter nodes=%d: the model has 2 to 4 nodes", cfg.Nodes)
			case cfg.Queue < 1:
				p.Fail("parameter queue=%d: the air must hold at least one packet", cfg.Queue)
			case cfg.Dest < -1 || cfg.Dest >= cfg.Nodes:
				p.Fail("parameter dest=%d: a node from 0 to %d, or -1 for every node", cfg.Dest, cfg.Nodes-1)
			case cfg.Hear < 1:
				p.Fail("parameter hear=%d: at least one neighbour hears a broadcast", cfg.Hear)
			case cfg.Requests < -1 || cfg.Faults < -1:
				p.Fail("parameters requests=%d, faults=%d: a bound, or -1 for none", cfg.Requests, cfg.Faults)
			}
			return NewModel(v.name, cfg)
		})
	}
}

// before and after bracket every event of router r (after is deferred, so it runs even when the
// event fails): after abstracts the time fields away and, when a trace is being recorded, notes
// each route entry the event changed, so that a trace says in one line per entry what a step did
// to the node's table. before returns the table as it was, only when notes are recorded.
func (s *System) before(r *Router) []Route {
	if !cmc.Noting() {
		return nil
	}
	return r.Routes()
}

func (s *System) after(r *Router, before []Route) {
	r.untimed()
	if !cmc.Noting() {
		return
	}
	for _, rt := range r.routes {
		i := slices.IndexFunc(before, func(b Route) bool { return b.Dest == rt.Dest })
		if i < 0 || before[i].String() != rt.String() {
			cmc.Record(cmc.Note{Kind: "route", Msg: rt.String()})
		}
	}
	for _, b := range before {
		if r.route(b.Dest) == nil {
			cmc.Record(cmc.Note{Kind: "route", Msg: b.Dest.String() + " forgotten"})
		}
	}
}

// untimed sets the router's time fields to zero. Under the model's constant clock they decide
// nothing (see the top of this file), and their values would only multiply states that behave
// alike. An RREP's lifetime is zeroed on the wire, by onWire.
func (r *Router) untimed() {
	for i := range r.routes {
		r.routes[i].Expiry = 0
	}
	for i := range r.seen {
		r.seen[i].Expiry = 0
	}
	r.waitEnd = 0
}

// mayRequest is the enabling condition of r's route request for dest: no valid route, not
// waiting after a reboot, RREQ ids left (the node's and the network's), and none of r's RREQs
// still in the air (RFC 3561 section 6.3 retries after the flood is over).
func (s *System) mayRequest(r *Router, dest NodeID) bool {
	if _, ok := r.NextHop(dest); ok || r.Waiting() || int(r.rreqID) >= s.cfg.MaxRREQ {
		return false
	}
	if s.cfg.Requests >= 0 {
		n := 0
		for _, o := range s.Routers {
			n += int(o.rreqID)
		}
		if n >= s.cfg.Requests {
			return false
		}
	}
	for _, p := range s.Air.Pending {
		if p.Msg.Type == TypeRREQ && p.Msg.Orig == r.id {
			return false
		}
	}
	return true
}

// floodOver reports whether no copy of a seen RREQ is in the air any more.
func (s *System) floodOver(seen seenRREQ) bool {
	return !slices.ContainsFunc(s.Air.Pending, func(p Packet) bool {
		return p.Msg.Type == TypeRREQ && p.Msg.Orig == seen.Orig && p.Msg.RREQID == seen.ID
	})
}

// forgetFloods forgets, at r, every seen RREQ whose flood is over.
func (s *System) forgetFloods(r *Router) {
	for _, seen := range slices.Clone(r.seen) {
		if s.floodOver(seen) {
			r.ExpireRREQ(seen.Orig, seen.ID)
		}
	}
}

// mayFault reports whether the fault budget allows one more fault; fault spends one.
func (s *System) mayFault() bool { return s.cfg.Faults < 0 || s.Faults.Injected < s.cfg.Faults }
func (s *System) fault()         { s.Faults.Injected++ }

// String names nodes A, B, C... as the thesis's figures do, and the broadcast address "*".
func (n NodeID) String() string {
	switch {
	case n == Everyone:
		return "*"
	case n < 26:
		return string(rune('A' + n))
	}
	return fmt.Sprintf("N%d", uint8(n))
}

// link is the router's Link on the checker's network.
type link struct {
	s    *System
	from NodeID
}

func (l *link) Send(to NodeID, m Message) error {
	if env.Fail(l.s.cfg.SendFail, "send") {
		return errors.New("send failed")
	}
	return l.s.Air.Send(l.from, to, onWire(m))
}

// Broadcast sends m to all the other nodes: one packet in the air (see Air).
func (l *link) Broadcast(m Message) error {
	if env.Fail(l.s.cfg.SendFail, "broadcast") {
		return errors.New("broadcast failed")
	}
	return l.s.Air.Broadcast(l.from, onWire(m))
}

// onWire is what the receiver gets: the message as it crosses a real network, through the RFC's
// packet format. A message the router cannot encode is a malformed message (Table 4.2). An RREP's
// lifetime is a time field, abstracted to zero like the others (see untimed).
func onWire(m Message) Message {
	b, err := Marshal(m)
	cmc.Assert(err == nil, "router sent a message it cannot encode: %v: %v", m, err)
	out, err := Unmarshal(b)
	cmc.Assert(err == nil, "router sent a message that does not decode: %v: %v", m, err)
	out.Lifetime = 0
	return out
}

// constClock is the thesis's constant clock: timeouts are events, not time.
type constClock struct{}

func (constClock) Now() Time { return 0 }

// alloc hands out message buffers, failing when the model says a failure is possible.
type alloc struct{ fail bool }

func (a *alloc) NewMessage() (*Message, error) {
	if env.Fail(a.fail, "alloc") {
		return nil, errors.New("out of buffers")
	}
	return new(Message), nil
}

// routesVia reports whether router r has a valid route whose next hop is nb: to one of the
// model's destinations when toDests is set, to anyone otherwise.
func (s *System) routesVia(r *Router, nb NodeID, toDests bool) bool {
	for _, rt := range r.routes {
		if rt.Valid && rt.NextHop == nb && (!toDests || slices.Contains(s.dests, rt.Dest)) {
			return true
		}
	}
	return false
}

// forgotten reports whether the network has forgotten node id, as it has after DELETE_PERIOD: no
// valid route leads through it, and no message from or to it is still in flight (a reply to a
// request it sent before the reboot would teach it a route it has no right to).
func (s *System) forgotten(id NodeID) bool {
	for _, r := range s.Routers {
		if r.ID() != id && s.routesVia(r, id, false) {
			return false
		}
	}
	for _, p := range s.Air.Pending {
		if p.From == id || p.hears(id) {
			return false
		}
	}
	return true
}

// withinBounds cuts states beyond the bounds, as the thesis did. MaxRREQ bounds every node's RREQ
// id (the request event also stops there), and with it the own sequence number of a node that is
// no destination: each request increments both. MaxSeq bounds the sequence numbers of the
// destinations: their own, and every one held or carried for them. Sequence numbers of routes to
// the requesters need no bound of their own: they never exceed the requester's own number by more
// than the one increment of an invalidation.
func (s *System) withinBounds() bool {
	ok := func(dest NodeID, seq uint32) bool {
		return int(seq) <= s.cfg.MaxSeq || !slices.Contains(s.dests, dest)
	}
	for _, r := range s.Routers {
		if !ok(r.id, r.seq) || int(r.rreqID) > s.cfg.MaxRREQ {
			return false
		}
		for _, rt := range r.routes {
			if !ok(rt.Dest, rt.Seq) {
				return false
			}
		}
	}
	for i := range s.Air.Pending {
		m := &s.Air.Pending[i].Msg
		if int(m.RREQID) > s.cfg.MaxRREQ {
			return false
		}
		switch m.Type {
		case TypeRREQ:
			if !ok(m.Dest, m.DestSeq) || !ok(m.Orig, m.OrigSeq) {
				return false
			}
		case TypeRREP:
			if !ok(m.Dest, m.DestSeq) {
				return false
			}
		}
		for _, u := range m.Unreachable {
			if !ok(u.Dest, u.Seq) {
				return false
			}
		}
	}
	return true
}

// path renders a chain of nodes.
func path(nodes []NodeID) string {
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = n.String()
	}
	return strings.Join(parts, " -> ")
}
