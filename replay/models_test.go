package replay

import (
	"errors"
	"fmt"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
	_ "github.com/cmc-go/cmc/examples/twophase" // registers TwoPhase
)

// Small models for the transcripts in testdata/, registered by name so cmctest and ExportTest can
// build them too. Each variant of relay changes one behaviour, to make a stored trace diverge.

type sender struct{ Sent int }

type summer struct{ Sum, Got int }

// relay: a sends up to three messages of value 1 or 2 (a Choose) to b over a network that holds
// two; b receives any pending one (a Choose when there are two) and adds it up. b's sum reaching 4
// violates Not4. change varies one behaviour: "double" (b adds twice the value), "fewer" (a sends
// only 1s, without a Choose), "narrow" (a's Choose has one option), "extra" (b makes a new Choose),
// "fixed" (the invariant allows 4).
func relay(change string) *cmc.Model {
	a, b := &sender{}, &summer{}
	net := &env.Network[int]{Bound: 2, Names: []string{"a", "b"}}
	m := cmc.NewModel("relay")
	m.Environment("net", net)
	m.Process("a", a).On("send", func() {
		var v int
		switch change {
		case "fewer":
			v = 1
		case "narrow":
			v = 1 + cmc.Choose(1)
		default:
			v = 1 + cmc.Choose(2)
		}
		if net.Send(0, 1, v) == nil {
			a.Sent++
		}
	}, cmc.When(func() bool { return a.Sent < 3 && len(net.Pending) < net.Bound }))
	m.Process("b", b).On("recv", func() {
		p, _ := net.Receive(1)
		if change == "extra" {
			cmc.Choose(2)
		}
		b.Got++
		b.Sum += p.Msg
		if change == "double" {
			b.Sum += p.Msg
		}
	}, cmc.When(func() bool { return net.Waiting(1) }))
	m.Invariant("Not4", func() error {
		if b.Sum == 4 && change != "fixed" {
			return fmt.Errorf("b's sum is 4 after %d messages", b.Got)
		}
		return nil
	})
	return m
}

// hidden is state the checker cannot see: a handler that reads it is nondeterministic.
var hidden int

type stamp struct{ Last, N int }

// stampModel writes a hidden, ever-growing counter into its state, as code reading the clock does.
func stampModel() *cmc.Model {
	hidden = 0 // each model starts it afresh, so the transcript does not depend on test order
	s := &stamp{}
	m := cmc.NewModel("stamp")
	m.Process("p", s).On("stamp", func() {
		hidden++
		s.Last = hidden
		s.N++
	}, cmc.When(func() bool { return s.N < 3 }))
	return m
}

type picker struct {
	Names map[string]int
	Order []string
}

// mapOrder picks the first key a map iteration yields: Go randomises that order on purpose.
func mapOrder() *cmc.Model {
	p := &picker{Names: map[string]int{}}
	for i := range 64 {
		p.Names[fmt.Sprintf("k%02d", i)] = i
	}
	m := cmc.NewModel("maporder")
	m.Process("p", p).On("pick", func() {
		for k := range p.Names {
			p.Order = append(p.Order, k)
			break
		}
	}, cmc.When(func() bool { return len(p.Order) < 3 }))
	return m
}

type cell struct{ N int }

// failing: inc counts up; check fails an assertion when N reaches 2.
func failing() *cmc.Model {
	c := &cell{}
	m := cmc.NewModel("failing")
	p := m.Process("p", c)
	p.On("inc", func() { c.N += 1 + cmc.Choose(2) }, cmc.When(func() bool { return c.N < 3 }))
	p.On("check", func() { cmc.Assert(c.N != 2, "N must not be %d", c.N) })
	return m
}

// walker changes its state, then chooses, then changes it again: stepping in shows the state
// halfway through the handler.
func walker() *cmc.Model {
	c := &cell{}
	m := cmc.NewModel("walker")
	m.Process("p", c).On("walk", func() {
		c.N += 10
		c.N += cmc.Choose(2)
		c.N += 100 * cmc.Choose(3)
	}, cmc.When(func() bool { return c.N < 300 }))
	m.Invariant("Below200", func() error {
		if c.N >= 200 {
			return fmt.Errorf("N is %d", c.N)
		}
		return nil
	})
	return m
}

type flag struct{ On bool }

// noisy: p counts to 3 (a violation) while q toggles a flag that has nothing to do with it.
func noisy() *cmc.Model {
	c, q := &cell{}, &flag{}
	m := cmc.NewModel("noisy")
	m.Process("p", c).On("inc", func() { c.N++ })
	m.Process("q", q).On("toggle", func() { q.On = !q.On })
	m.Invariant("Not3", func() error {
		if c.N == 3 {
			return errors.New("N is 3")
		}
		return nil
	})
	return m
}

// initbad violates its invariant in the initial state: its traces have no steps.
func initbad() *cmc.Model {
	c := &cell{N: 1}
	m := cmc.NewModel("initbad")
	m.Process("p", c).On("inc", func() { c.N++ })
	m.Invariant("Zero", func() error {
		if c.N != 0 {
			return fmt.Errorf("N is %d", c.N)
		}
		return nil
	})
	return m
}

// ring: n nodes in a ring, each a counter mod k; a node ticks (adds 1 or 2) and passes its value
// to the next node, which adds what it receives. It never runs out of enabled events, so random
// walks can be as long as the benchmarks want.
type ringNode struct{ X int }

func ring(n, k int) *cmc.Model {
	net := &env.Network[int]{Bound: n}
	m := cmc.NewModel("ring")
	m.Environment("net", net)
	for i := range n {
		node := &ringNode{}
		p := m.Process(fmt.Sprintf("n%d", i), node)
		p.On("tick", func() {
			node.X = (node.X + 1 + cmc.Choose(2)) % k
			_ = net.Send(i, (i+1)%n, node.X) // a full network drops it
		})
		p.On("recv", func() {
			if pk, ok := net.Receive(i); ok {
				node.X = (node.X + pk.Msg) % k
			}
		}, cmc.When(func() bool { return net.Waiting(i) }))
	}
	m.Invariant("Bounded", func() error {
		if len(net.Pending) > n {
			return errors.New("more messages than the bound")
		}
		return nil
	})
	return m
}

func init() {
	for _, change := range []string{"", "double", "fewer", "narrow", "extra", "fixed"} {
		name := "relay"
		if change != "" {
			name += "-" + change
		}
		cmc.Register(name, func(p *cmc.Params) *cmc.Model { return relay(change) })
	}
	cmc.Register("stamp", func(*cmc.Params) *cmc.Model { return stampModel() })
	cmc.Register("maporder", func(*cmc.Params) *cmc.Model { return mapOrder() })
	cmc.Register("failing", func(*cmc.Params) *cmc.Model { return failing() })
	cmc.Register("initbad", func(*cmc.Params) *cmc.Model { return initbad() })
	cmc.Register("noisy", func(*cmc.Params) *cmc.Model { return noisy() })
	cmc.Register("walker", func(*cmc.Params) *cmc.Model { return walker() })
	cmc.Register("ring", func(p *cmc.Params) *cmc.Model { return ring(p.Int("N", 3), p.Int("K", 5)) })
}
