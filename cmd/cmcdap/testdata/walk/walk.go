// Package walk registers Walk: two counters that go up and down, and an invariant that breaks
// when both are 3. A random walk reaches that the long way round; the shortest trace has 6 steps.
package walk

import (
	"errors"

	"github.com/cmc-go/cmc"
)

type counter struct{ N int }

func init() {
	cmc.Register("Walk", func(p *cmc.Params) *cmc.Model {
		a, b := &counter{}, &counter{}
		m := cmc.NewModel("Walk")
		for _, c := range []struct {
			name string
			n    *counter
		}{{"a", a}, {"b", b}} {
			m.Process(c.name, c.n).
				On("up", func() { c.n.N++ }, cmc.When(func() bool { return c.n.N < 4 })).
				On("down", func() { c.n.N-- }, cmc.When(func() bool { return c.n.N > 0 }))
		}
		m.Invariant("NotBoth3", func() error {
			if a.N == 3 && b.N == 3 {
				return errors.New("a and b are both 3")
			}
			return nil
		})
		return m
	})
}
