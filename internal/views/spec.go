package views

import (
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/tracefmt"
)

// A SpecView is one specification the model refines (cmc.Refines, docs/refinement.md) at a step:
// its state after the step, and what it made of the step (tracefmt.SpecSteps, as the debugger's
// Specification scope reads it): the spec step the step matched, or, at a refused step, what the
// step showed and every move the specification allowed there.
type SpecView struct {
	tracefmt.SpecStep
	State []DiffRow `json:"state"` // the specification's leaves, marked with what the step changed
}

// specViews are the specifications of t at step, their state read from rows (the state after the
// step, StateDiff's).
func specViews(t *engine.Trace, names []string, step int, rows []DiffRow) []SpecView {
	steps := tracefmt.SpecSteps(t, step)
	out := make([]SpecView, len(names))
	for i, name := range names {
		out[i].Spec = name
		if steps != nil {
			out[i].SpecStep = steps[i]
		}
		out[i].State = []DiffRow{}
		for _, r := range rows {
			if rootOf(r.Path) == name {
				out[i].State = append(out[i].State, r)
			}
		}
	}
	return out
}
