// Package relay is a small model for the DAP tests: node A announces itself to B or C (a
// Choose), and B and C install the route and pass the announcement on to each other over an
// unordered network. Passing it on without checking whether the route is new makes hop counts
// grow until the invariant "no route is longer than two hops" breaks, four steps in.
package relay

import (
	"fmt"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
)

// A Route is one routing table entry.
type Route struct {
	Hops int
	Next string
	Seq  int
}

// A Node is one router.
type Node struct {
	Name   string
	Seq    int
	Routes map[string]Route
}

// An Ad announces a route to Dest.
type Ad struct {
	Dest string
	Seq  int
	Hops int
}

func (a Ad) String() string { return fmt.Sprintf("AD{%s seq %d hops %d}", a.Dest, a.Seq, a.Hops) }

var names = []string{"A", "B", "C"}

// New builds the model; maxHops is the invariant's bound.
func New(maxHops int) *cmc.Model {
	m := cmc.NewModel("Relay")
	net := &env.Network[Ad]{Bound: 4, Names: names}
	m.Environment("net", net)
	nodes := make([]*Node, len(names))
	for i, n := range names {
		nodes[i] = &Node{Name: n, Routes: map[string]Route{}}
	}
	a := nodes[0]
	m.Process("A", a).On("announce", func() {
		a.Seq++
		to := 1 + cmc.Choose(2) // B or C
		net.Send(0, to, Ad{Dest: "A", Seq: a.Seq, Hops: 0})
	}, cmc.When(func() bool { return a.Seq < 2 }))
	for i := 1; i < len(names); i++ {
		me := nodes[i]
		other := 3 - i // B passes on to C, C to B
		m.Process(me.Name, me).On("receive", func() {
			p, ok := net.Receive(i)
			if !ok {
				return
			}
			me.Routes[p.Msg.Dest] = Route{Hops: p.Msg.Hops + 1, Next: names[p.From], Seq: p.Msg.Seq}
			net.Send(i, other, Ad{Dest: p.Msg.Dest, Seq: p.Msg.Seq, Hops: p.Msg.Hops + 1})
		}, cmc.When(func() bool { return net.Waiting(i) }))
	}
	m.Invariant("HopBound", func() error {
		for _, n := range nodes {
			for d, r := range n.Routes {
				if r.Hops > maxHops {
					return fmt.Errorf("%s's route to %s has %d hops", n.Name, d, r.Hops)
				}
			}
		}
		return nil
	})
	m.Constraint("small", func() bool {
		for _, n := range nodes {
			for _, r := range n.Routes {
				if r.Hops > 6 {
					return false
				}
			}
		}
		return true
	})
	return m
}

func init() {
	cmc.Register("Relay", func(p *cmc.Params) *cmc.Model {
		h := p.Int("hops", 2)
		if h < 1 {
			p.Fail("parameter hops=%d: want at least 1", h)
		}
		return New(h)
	})
	cmc.Register("Quiet", func(p *cmc.Params) *cmc.Model { return New(100) })
}

// Forever counts without bound: its state space never ends, so a check of it runs until it is
// cancelled.
func Forever() *cmc.Model {
	m := cmc.NewModel("Forever")
	n := &struct{ N, M int }{}
	m.Process("p", n).
		On("inc", func() { n.N++ }).
		On("other", func() { n.M++ })
	return m
}

func init() {
	cmc.Register("Forever", func(p *cmc.Params) *cmc.Model { return Forever() })
}
