// Package stuck registers Hang and Exit: a counter whose third step loops forever or exits the
// process while fixed is false. TestExportHangAndCrash exports their traces as tests, runs them
// (they fail), sets fixed to true in a copy and runs them again (they pass).
package stuck

import (
	"os"

	"github.com/cmc-go/cmc"
)

const fixed = false

type counter struct{ N int }

func model(name string, bad func(n int) int) cmc.Builder {
	return func(p *cmc.Params) *cmc.Model {
		c := &counter{}
		m := cmc.NewModel(name)
		m.Process("p", c).On("inc", func() {
			if c.N == 2 && !fixed {
				c.N = bad(c.N)
				return
			}
			c.N++
		}, cmc.When(func() bool { return c.N < 3 }))
		return m
	}
}

func init() {
	cmc.Register("Hang", model("Hang", func(n int) int {
		for n > 0 {
			n = n%7 + 1
		}
		return n
	}))
	cmc.Register("Exit", model("Exit", func(n int) int {
		os.Exit(7)
		return n
	}))
}
