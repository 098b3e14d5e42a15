// Package noprocs registers a model with no processes, and one with a parameter.
package noprocs

import "github.com/cmc-go/cmc"

func init() {
	cmc.Register("Empty", func(p *cmc.Params) *cmc.Model { return cmc.NewModel("Empty") })
	cmc.Register("Counter", func(p *cmc.Params) *cmc.Model {
		n := p.Int("n", 2)
		x := &struct{ X int }{}
		m := cmc.NewModel("Counter")
		m.Process("c", x).On("inc", func() { x.X++ }, cmc.When(func() bool { return x.X < n }))
		return m
	})
}
