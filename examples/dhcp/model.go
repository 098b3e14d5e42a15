package dhcp

import (
	"slices"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
	"github.com/cmc-go/cmc/examples/dhcp/rfc2131"
)

// The model: one client, one server with a pool of addresses that answers as any server may
// (an offer of any free address; an ACK or a NAK to any request), a link that reorders and loses
// messages, the client's timers, and an ARP probe that may find the address in use.

// ModelConfig bounds the model.
type ModelConfig struct {
	Reboot  bool // the client starts in INIT-REBOOT, remembering address 1
	Retries int  // retransmissions per exchange
	Loss    bool // the link may lose a message
	Bound   int  // messages in flight at most
	MaxXID  int  // states where the client has begun more exchanges than this are cut
	NakBug  bool // the client runs with Config.NakKeepsAddress
}

// DefaultModel is what `cmcdap check` runs without parameters.
var DefaultModel = ModelConfig{Retries: 1, Loss: true, Bound: 2, MaxXID: 4}

// Server is a DHCP server with a pool of two addresses. It keeps no bindings: it may offer and
// acknowledge any address and refuse any request, which covers what any server may answer.
type Server struct {
	Declined []uint8 `cmc:"set"` // addresses a client declined: not offered again
}

// System is the model's state.
type System struct {
	Client Client
	Server Server
	Net    env.Network[Msg]
	Timers env.Timers
	Link   Link
}

// Link is the client's link layer: an ARP probe under way and the address in use.
type Link struct {
	Probe uint8 // the address an ARP probe is asking about (0: none)
	Addr  uint8 // the address the interface uses (0: none)
}

const client, server = 0, 1

// NewModel builds the model with c's bounds.
func NewModel(c ModelConfig) *cmc.Model {
	s := &System{Net: env.Network[Msg]{Bound: c.Bound, Loss: c.Loss, Names: []string{"client", "server"}}}
	m := cmc.NewModel("DHCP")
	m.Environment("net", &s.Net)
	m.Environment("timers", &s.Timers)
	m.Environment("link", &s.Link)
	var lease uint8
	init := rfc2131.Init
	if c.Reboot {
		lease, init = 1, rfc2131.InitReboot
	}
	log := &stepLog{}
	s.Client.Init(Config{Retries: c.Retries, NakKeepsAddress: c.NakBug}, &host{s}, log, lease)
	cl := m.Process("client", &s.Client)
	cl.On("start", s.Client.Start, cmc.When(func() bool {
		return s.Client.State == Init || s.Client.State == InitReboot
	}))
	cl.On("receive", func() {
		if p, ok := s.Net.Receive(client); ok {
			s.Client.Receive(p.Msg)
		}
	}, cmc.When(func() bool { return s.Net.Waiting(client) }))
	for _, t := range []string{Retransmit, SelectWait, T1, T2, LeaseEnd} {
		cl.On("timeout "+t, func() {
			s.Timers.Fire(client, t)
			s.Client.Timeout(t)
		}, cmc.When(func() bool { return s.Timers.IsSet(client, t) }))
	}
	cl.On("probe done", func() {
		s.Link.Probe = 0
		s.Client.ProbeDone(cmc.Choose(2) == 1)
	}, cmc.When(func() bool { return s.Link.Probe != 0 }))
	m.Process("server", &s.Server).On("receive", func() {
		p, ok := s.Net.Receive(server)
		if !ok {
			return
		}
		s.Server.serve(p.Msg, func(r Msg) { _ = s.Net.Send(server, client, r) })
	}, cmc.When(func() bool { return s.Net.Waiting(server) }))
	cmc.Refines(m, rfc2131.Spec("rfc2131", init), cmc.Observer[string]{
		State: func() (string, bool) { return s.Client.State.String(), s.Client.State != Probing },
		Step:  func(*cmc.Event) cmc.Observed { return log.take() },
	})
	m.Constraint("exchanges", func() bool { return int(s.Client.XID) <= c.MaxXID })
	return m
}

// serve answers m as a server may.
func (sv *Server) serve(m Msg, reply func(Msg)) {
	switch m.Op {
	case Discover:
		var free []uint8
		for _, a := range []uint8{1, 2} {
			if !slices.Contains(sv.Declined, a) {
				free = append(free, a)
			}
		}
		if len(free) > 0 {
			reply(Msg{Op: Offer, XID: m.XID, Addr: cmc.ChooseOf(free, nil)})
		}
	case Request:
		if cmc.Choose(2) == 0 {
			reply(Msg{Op: Ack, XID: m.XID, Addr: m.Addr})
		} else {
			reply(Msg{Op: Nak, XID: m.XID})
		}
	case Decline:
		if !slices.Contains(sv.Declined, m.Addr) {
			sv.Declined = append(sv.Declined, m.Addr)
		}
	}
}

// host is the client's world in the model.
type host struct{ s *System }

func (h *host) Send(m Msg)             { _ = h.s.Net.Send(client, server, m) }
func (h *host) StartTimer(name string) { h.s.Timers.Set(client, name) }
func (h *host) StopTimer(name string)  { h.s.Timers.Cancel(client, name) }
func (h *host) Probe(addr uint8)       { h.s.Link.Probe = addr }
func (h *host) Configure(addr uint8)   { h.s.Link.Addr = addr }
func (h *host) Halt()                  { h.s.Link.Addr = 0 }

// stepLog hears the client (Tracer) and hands each transition's step to the refinement check.
type stepLog struct{ last cmc.Observed }

func (l *stepLog) Step(event string, actions []string, _ State) {
	l.last = cmc.Observed{Event: event, Actions: slices.Clone(actions)}
}

func (l *stepLog) take() cmc.Observed {
	o := l.last
	l.last = cmc.Observed{}
	return o
}

func init() {
	cmc.Register("DHCP", func(p *cmc.Params) *cmc.Model {
		c := DefaultModel
		c.Reboot = p.Int("reboot", 0) == 1
		c.Retries = p.Int("retries", c.Retries)
		c.Loss = p.Int("loss", 1) == 1
		c.Bound = p.Int("bound", c.Bound)
		c.MaxXID = p.Int("maxxid", c.MaxXID)
		c.NakBug = p.Int("nakbug", 0) == 1
		return NewModel(c)
	})
}
