// Package badmodels holds models whose handlers misbehave, to test that the coordinator turns
// them into findings.
package badmodels

import (
	"os"

	"github.com/cmc-go/cmc"
)

type state struct{ N int }

func model(name string, bad func(n int)) cmc.Builder {
	return func(p *cmc.Params) *cmc.Model {
		s := &state{}
		m := cmc.NewModel(name)
		m.Process("p", s).
			On("inc", func() { s.N++ }, cmc.When(func() bool { return s.N < 3 })).
			On("bad", func() {
				if s.N == 2 {
					bad(s.N)
				}
			})
		return m
	}
}

func recurse(n int) int { return recurse(n+1) + 1 }

func init() {
	cmc.Register("Hang", model("Hang", func(n int) {
		for {
			n = n*3 + 1
		}
	}))
	cmc.Register("Exit", model("Exit", func(int) { os.Exit(7) }))
	cmc.Register("Overflow", model("Overflow", func(n int) { recurse(n) }))
	cmc.Register("Panic", model("Panic", func(int) { panic("boom") }))
}
