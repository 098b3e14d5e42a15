package engine

import (
	"errors"
	"fmt"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
)

// Small models for the transcripts in testdata/. Each is ordinary Go code.

type counter struct{ X int }

// counterModel: one process adds 1 or 2 (a Choose) until X reaches 4; X == 3 violates, if bad.
func counterModel(bad bool) *cmc.Model {
	c := &counter{}
	m := cmc.NewModel("counter")
	m.Process("c", c).On("add", func() { c.X += 1 + cmc.Choose(2) }, cmc.When(func() bool { return c.X < 4 }))
	if bad {
		m.Invariant("not3", func() error {
			if c.X == 3 {
				return errors.New("X is 3")
			}
			return nil
		})
	}
	return m
}

type pinger struct {
	Sent, Got int
}

// pingModel: a sends up to two pings to b over a lossy, duplicating network; b counts them.
func pingModel() *cmc.Model {
	a, b := &pinger{}, &pinger{}
	net := &env.Network[string]{Bound: 2, Loss: true, Dup: true, Names: []string{"a", "b"}}
	m := cmc.NewModel("ping")
	m.Environment("net", net)
	m.Process("a", a).On("send", func() {
		if net.Send(0, 1, fmt.Sprintf("ping%d", a.Sent)) == nil {
			a.Sent++
		}
	}, cmc.When(func() bool { return a.Sent < 2 }))
	m.Process("b", b).On("recv", func() {
		if _, ok := net.Receive(1); ok {
			b.Got++
		}
	}, cmc.When(func() bool { return net.Waiting(1) }))
	m.Invariant("no-more-than-sent-twice", func() error {
		if b.Got > 2*a.Sent {
			return fmt.Errorf("b got %d, a sent %d", b.Got, a.Sent)
		}
		return nil
	})
	return m
}

type cell struct{ N int }

// failModel has a handler that panics, one that fails an assertion, and one that divides by zero,
// each only in some state.
func failModel(kind string) *cmc.Model {
	c := &cell{}
	m := cmc.NewModel("fail")
	p := m.Process("p", c)
	p.On("inc", func() { c.N++ }, cmc.When(func() bool { return c.N < 3 }))
	switch kind {
	case "panic":
		p.On("boom", func() {
			if c.N == 2 {
				var m map[string]int
				m["x"] = 1
			}
		})
	case "assert":
		p.On("check", func() { cmc.Assert(c.N != 2, "N must not be %d", c.N) })
	case "deadlock":
		m.DeadlockIsError()
	case "step":
		cmc.StepInvariant(m, "grows-by-one", func() int { return c.N }, func(b, a int) error {
			if a != b+1 {
				return fmt.Errorf("N went from %d to %d", b, a)
			}
			return nil
		})
		p.On("double", func() { c.N *= 2 }, cmc.When(func() bool { return c.N == 2 }))
	case "choose-outside":
		m.Invariant("bad", func() error { cmc.Choose(2); return nil })
	}
	return m
}

type leak struct {
	C chan int
	F func()
}

func uncapturable() *cmc.Model {
	m := cmc.NewModel("leak")
	l := &leak{}
	m.Process("l", l).On("open", func() { l.C = make(chan int) })
	return m
}

var testModels = map[string]func() *cmc.Model{
	"counter":        func() *cmc.Model { return counterModel(false) },
	"counter-bad":    func() *cmc.Model { return counterModel(true) },
	"ping":           pingModel,
	"panic":          func() *cmc.Model { return failModel("panic") },
	"assert":         func() *cmc.Model { return failModel("assert") },
	"deadlock":       func() *cmc.Model { return failModel("deadlock") },
	"step":           func() *cmc.Model { return failModel("step") },
	"choose-outside": func() *cmc.Model { return failModel("choose-outside") },
	"leak":           uncapturable,
	"empty":          func() *cmc.Model { return cmc.NewModel("empty") },
}

//lint:file-ignore SA5000 failModel's handler writes to a nil map on purpose; at the end so the golden files' line numbers stay put
