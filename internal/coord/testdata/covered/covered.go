// Package covered is a small model whose handlers leave some code unrun, for the coverage test:
// its figures from cmcdap check -cover must be those go test -cover gives for the same paths
// (covered_test.go checks the same state space in-process).
package covered

import (
	"errors"

	"github.com/cmc-go/cmc"
)

// A Counter counts up to three and remembers a mode.
type Counter struct {
	N    int
	Mode string
}

// New builds the model.
func New() *cmc.Model {
	c := &Counter{}
	m := cmc.NewModel("Covered")
	p := m.Process("c", c)
	p.On("inc", func() {
		c.N++
		if c.N > 100 {
			c.Mode = "overflow" // never: inc is enabled only below 3
		}
	}, cmc.When(func() bool { return c.N < 3 }))
	p.On("mode", func() { c.Mode = pick(cmc.Choose(2)) })
	m.Invariant("Small", func() error {
		if c.N > 10 {
			return errors.New("too big")
		}
		return nil
	})
	return m
}

func init() { cmc.Register("Covered", func(*cmc.Params) *cmc.Model { return New() }) }
