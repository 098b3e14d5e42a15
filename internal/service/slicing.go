package service

import (
	"context"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

// Suggest walks c's model at random in a worker and returns the fields that behaved like
// counters, statistics or timestamps, with the evidence (engine.SuggestOmissions). Nothing is
// left out: the user adds the suggested m.Omit calls, or not.
func (p *Program) Suggest(ctx context.Context, c *Check, steps int, seed uint64) (*engine.Slicing, error) {
	var sl engine.Slicing
	if err := p.once(ctx, "slicing.suggest", worker.SuggestArgs{Model: c.Model, Params: c.Params, Steps: steps, Seed: seed}, &sl); err != nil {
		return nil, err
	}
	return &sl, nil
}
