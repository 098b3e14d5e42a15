package aodv

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
)

// This file and invariants.go are the checker's harness: the model of the thesis's Table 4.1 built
// around unchanged router code. The router itself imports nothing of the checker.

// ModelConfig bounds the model, as the thesis bounds its state space (section 4.5).
type ModelConfig struct {
	Nodes     int  // 2 to 4, fully connected
	Queue     int  // the network holds at most this many messages
	MaxSeq    int  // states with a larger sequence number anywhere are cut
	MaxRREQ   int  // states with a larger RREQ id are cut
	AllocFail bool // a message buffer allocation may fail
	SendFail  bool // a send may fail at the interface
	Order     bool // check the loop-freedom partial order on every next-hop pair
	Reboot    bool // nodes may reboot
	Bug       bool // the specification's unguarded RERR rule
}

// System is the checked system: the routers and the network between them.
type System struct {
	Routers []*Router
	Net     *env.Network[Message]
	cfg     ModelConfig
}

// NewModel builds the AODV model of the thesis: nodes running the router, an unordered bounded
// network that may lose messages, and the events of Table 4.1.
func NewModel(name string, cfg ModelConfig) *cmc.Model {
	s := &System{cfg: cfg, Net: &env.Network[Message]{Bound: cfg.Queue, Loss: true}}
	m := cmc.NewModel(name)
	m.Environment("net", s.Net)
	for i := range cfg.Nodes {
		id := NodeID(i)
		s.Net.Names = append(s.Net.Names, id.String())
		r := New(id, Config{SpecRERRBug: cfg.Bug}, &link{s: s, from: id}, constClock{}, &alloc{fail: cfg.AllocFail})
		s.Routers = append(s.Routers, r)
		p := m.Process(id.String(), r)
		for d := range cfg.Nodes {
			dest := NodeID(d)
			if dest == id {
				continue
			}
			// Table 4.1: a node with an invalid or no route initiates a route request.
			p.On("request "+dest.String(), func() { r.RequestRoute(dest) },
				cmc.When(func() bool { _, ok := r.NextHop(dest); return !ok && !r.Waiting() }))
			// A valid route times out (time is abstract: the clock is a constant).
			p.On("timeout "+dest.String(), func() { r.ExpireRoute(dest) },
				cmc.When(func() bool { _, ok := r.NextHop(dest); return ok }))
		}
		// A pending message is received (which one, and whether it is lost, are choices).
		p.On("receive", func() {
			pk, ok := s.Net.Receive(int(id))
			if !ok {
				return
			}
			err := r.Receive(NodeID(pk.From), pk.Msg)
			cmc.Assert(err == nil, "%v", err)
		}, cmc.When(func() bool { return s.Net.Waiting(int(id)) }))
		for n := range cfg.Nodes {
			nb := NodeID(n)
			if nb == id {
				continue
			}
			// A link failure is detected (only where a route uses the link: elsewhere it changes nothing).
			p.On("link to "+nb.String()+" fails", func() { r.LinkBroken(nb) },
				cmc.When(func() bool { return s.routesVia(r, nb) }))
		}
		if cfg.Reboot {
			p.On("reboot", func() { r.Reboot() })
			// DELETE_PERIOD after a reboot runs out: only once no one routes through the node and
			// nothing it sent before is in flight, the RFC's timing argument (section 6.13).
			p.On("reboot wait ends", func() { r.EndRebootWait() },
				cmc.When(func() bool { return r.Waiting() && s.forgotten(id) }))
		}
	}
	s.properties(m)
	m.Constraint("bounds", s.withinBounds)
	return m
}

func init() {
	for _, v := range []struct {
		name string
		bug  bool
	}{{"AODVSpecBug", true}, {"AODV", false}} {
		cmc.Register(v.name, func(p *cmc.Params) *cmc.Model {
			cfg := ModelConfig{
				Nodes: p.Int("nodes", 4), Queue: p.Int("queue", 3), MaxSeq: p.Int("seq", 3), MaxRREQ: p.Int("rreq", 2),
				AllocFail: p.Bool("allocfail", false), SendFail: p.Bool("sendfail", false), Order: p.Bool("order", !v.bug), Reboot: p.Bool("reboot", false), Bug: v.bug,
			}
			if cfg.Nodes < 2 || cfg.Nodes > 4 {
				p.Fail("parameter nodes=%d: the model has 2 to 4 nodes", cfg.Nodes)
			}
			if cfg.Queue < 1 {
				p.Fail("parameter queue=%d: the network must hold at least one message", cfg.Queue)
			}
			return NewModel(v.name, cfg)
		})
	}
}

// String names nodes A, B, C... as the thesis's figures do.
func (n NodeID) String() string {
	if n < 26 {
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
	return l.s.Net.Send(int(l.from), int(to), onWire(m))
}

// onWire is what the receiver gets: the message as it crosses a real network, through the RFC's
// packet format. A message the router cannot encode is a malformed message (Table 4.2).
func onWire(m Message) Message {
	b, err := Marshal(m)
	cmc.Assert(err == nil, "router sent a message it cannot encode: %v: %v", m, err)
	out, err := Unmarshal(b)
	cmc.Assert(err == nil, "router sent a message that does not decode: %v: %v", m, err)
	return out
}

// Broadcast is one copy per neighbour on the fully connected network; a copy that does not fit
// in the network is lost.
func (l *link) Broadcast(m Message) error {
	if env.Fail(l.s.cfg.SendFail, "broadcast") {
		return errors.New("broadcast failed")
	}
	sent := 0
	for i := range l.s.Routers {
		if NodeID(i) != l.from && l.s.Net.Send(int(l.from), i, onWire(m)) == nil {
			sent++
		}
	}
	if sent == 0 {
		return env.ErrFull
	}
	return nil
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

func (s *System) routesVia(r *Router, nb NodeID) bool {
	for _, rt := range r.Routes() {
		if rt.Valid && rt.NextHop == nb {
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
		if r.ID() != id && s.routesVia(r, id) {
			return false
		}
	}
	for _, p := range s.Net.Pending {
		if p.From == int(id) || p.To == int(id) {
			return false
		}
	}
	return true
}

// withinBounds cuts states beyond the sequence number and RREQ id bounds, as the thesis did.
func (s *System) withinBounds() bool {
	ok := func(seq uint32) bool { return int(seq) <= s.cfg.MaxSeq }
	for _, r := range s.Routers {
		if !ok(r.OwnSeq()) || int(r.RREQID()) > s.cfg.MaxRREQ {
			return false
		}
		for _, rt := range r.Routes() {
			if !ok(rt.Seq) {
				return false
			}
		}
	}
	for _, p := range s.Net.Pending {
		if !ok(p.Msg.DestSeq) || !ok(p.Msg.OrigSeq) || int(p.Msg.RREQID) > s.cfg.MaxRREQ {
			return false
		}
		for _, u := range p.Msg.Unreachable {
			if !ok(u.Seq) {
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
