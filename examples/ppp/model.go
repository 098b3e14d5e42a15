package ppp

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
	"github.com/cmc-go/cmc/examples/ppp/lcp"
	"github.com/cmc-go/cmc/examples/ppp/rfc1661"
)

// Config bounds the model and chooses the code that runs.
type Config struct {
	Ops        int  // administrative events (Open, Close) and lower-layer changes (Up, Down) per end
	Bound      int  // packets in flight on the link at most
	Loss       bool // the link may lose a packet
	MaxID      int  // states where an end has sent more requests than this are cut
	Negotiate  bool // the ends disagree on options at first (a Reject and a Nak before the Ack)
	PPPD240RTA bool // both ends run pppd 2.4.0's Terminate-Ack handling
	// SpecPeer makes B the specification itself (SpecPeer), so A is checked assuming only that
	// its peer follows RFC 1661: pppd0 ‖ link ‖ ppp1 ⪯ ppp0.
	SpecPeer bool
}

// DefaultConfig is the model `cmcdap check` runs without parameters.
var DefaultConfig = Config{Ops: 3, Bound: 2, Loss: true, MaxID: 4}

// Node is one end of the link: the LCP automaton, whether its lower layer is up, and what is
// left of its budget of administrative events.
type Node struct {
	LCP   lcp.FSM
	Lower bool
	Ops   int
}

// System is the model's state: two ends, the link between them and their restart timers.
type System struct {
	Nodes  [2]Node
	Peer   SpecPeer // B, when Config.SpecPeer
	Net    env.Network[lcp.Packet]
	Timers env.Timers
}

var names = []string{"A", "B"}

// New builds the model: two ends running the lcp package over a link that reorders packets
// (any packet in flight may arrive next) and, with Loss, loses them. Each end's steps must be
// steps of RFC 1661's automaton (rfc1661.Spec): the model refines ppp0 ‖ ppp1, and as the specs'
// state is theirs alone, that is pppd0 ‖ link ‖ pppd1 ⪯ ppp0 for each end in turn. With
// SpecPeer, B is the table itself and only A is checked: pppd0 ‖ link ‖ ppp1 ⪯ ppp0, the
// seed's assume-guarantee subgoal.
func New(c Config) *cmc.Model {
	s := &System{Net: env.Network[lcp.Packet]{Bound: c.Bound, Loss: c.Loss, Names: names}}
	m := cmc.NewModel("PPP")
	m.Environment("net", &s.Net)
	m.Environment("timers", &s.Timers)
	counts := rfc1661.Counts{MaxConfigure: 2, MaxTerminate: 2}
	for i := range s.Nodes {
		if i == 1 && c.SpecPeer {
			s.Peer = SpecPeer{Spec: rfc1661.State{Phase: rfc1661.Initial}, Ops: c.Ops, counts: counts}
			peerEvents(m.Process(names[i], &s.Peer), &s.Peer, &s.Net, i)
			break
		}
		n := &s.Nodes[i]
		n.Ops = c.Ops
		cfg := lcp.Config{MaxConfigure: counts.MaxConfigure, MaxTerminate: counts.MaxTerminate, PPPD240RTA: c.PPPD240RTA}
		if c.Negotiate {
			// A asks for a small MRU and header compression; B takes neither.
			cfg.Want = [2]lcp.Options{{MRU: 296, PFC: true}, {MRU: 1500}}[i]
			cfg.MinMRU = [2]uint16{0, 1500}[i]
			cfg.AllowPFC = i == 0
		}
		log := &stepLog{}
		n.LCP.Init(cfg, &wire{sys: s, me: i}, log)
		p := m.Process(names[i], n)
		admin := func() bool { return n.Ops > 0 }
		p.On("Up", func() { n.Ops--; n.Lower = true; n.LCP.Up() }, cmc.When(func() bool { return admin() && !n.Lower }))
		p.On("Down", func() {
			n.Ops--
			n.Lower = false
			n.LCP.Down()
		}, cmc.When(func() bool { return admin() && n.Lower }))
		p.On("Open", func() { n.Ops--; n.LCP.Open() }, cmc.When(admin))
		p.On("Close", func() { n.Ops--; n.LCP.Close() }, cmc.When(admin))
		p.On("timeout", func() {
			s.Timers.Fire(i, "restart")
			n.LCP.Timeout()
		}, cmc.When(func() bool { return s.Timers.IsSet(i, "restart") }))
		p.On("receive", func() {
			if pkt, ok := s.Net.Receive(i); ok {
				n.LCP.Input(pkt.Msg)
			}
		}, cmc.When(func() bool { return s.Net.Waiting(i) }))
		spec := rfc1661.Spec("ppp"+fmt.Sprint(i), counts)
		cmc.Refines(m, spec, cmc.Observer[rfc1661.State]{
			State: func() (rfc1661.State, bool) { return rfc1661.State{Phase: n.LCP.State.String()}, true },
			Step:  func(*cmc.Event) cmc.Observed { return log.take() },
		})
	}
	m.Constraint("requests", func() bool {
		return int(s.Nodes[0].LCP.ID) <= c.MaxID && int(s.Nodes[1].LCP.ID) <= c.MaxID && int(s.Peer.ID) <= c.MaxID
	})
	return m
}

// wire is one end's world: its half of the link, its restart timer, and an upper layer that
// only listens.
type wire struct {
	sys *System
	me  int
}

func (w *wire) Send(p lcp.Packet) { _ = w.sys.Net.Send(w.me, 1-w.me, p) } // full: lost, as on a real link
func (w *wire) StartTimer()       { w.sys.Timers.Set(w.me, "restart") }
func (w *wire) StopTimer()        { w.sys.Timers.Cancel(w.me, "restart") }
func (w *wire) Up()               {}
func (w *wire) Down()             {}
func (w *wire) Started()          {}
func (w *wire) Finished()         {}

// stepLog hears an end's automaton (lcp.Tracer) and hands the last step to the refinement check.
// It is not state: each transition's step is taken right after it.
type stepLog struct{ last cmc.Observed }

func (l *stepLog) Step(event string, actions []string, _ lcp.State) {
	l.last = cmc.Observed{Event: event, Actions: slices.Clone(actions)}
}

func (l *stepLog) take() cmc.Observed {
	o := l.last
	l.last = cmc.Observed{}
	return o
}

func init() {
	cmc.Register("PPP", func(p *cmc.Params) *cmc.Model {
		c := DefaultConfig
		c.Ops = p.Int("ops", c.Ops)
		c.Bound = p.Int("bound", c.Bound)
		c.Loss = p.Int("loss", 1) == 1
		c.MaxID = p.Int("maxid", c.MaxID)
		c.Negotiate = p.Int("negotiate", 0) == 1
		c.PPPD240RTA = p.Int("pppd", 0) == 1
		c.SpecPeer = p.Int("specpeer", 0) == 1
		return New(c)
	})
}
