// Package workers registers a model whose builder says when it runs: a breadth-first check builds
// one more instance of the model for each worker that expands its levels.
package workers

import (
	"fmt"

	"github.com/cmc-go/cmc"
)

func init() {
	cmc.Register("Grid", func(p *cmc.Params) *cmc.Model {
		fmt.Println("built")
		m := cmc.NewModel("Grid")
		for _, name := range []string{"x", "y", "z"} {
			a := &struct{ N int }{}
			m.Process(name, a).On("up", func() { a.N += 1 + cmc.Choose(2) }, cmc.When(func() bool { return a.N < 12 }))
		}
		return m
	})
}
