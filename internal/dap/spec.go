package dap

import (
	"fmt"

	"github.com/cmc-go/cmc/tracefmt"
	"github.com/google/go-dap"
)

// The Specification scope, for a model that refines a specification (cmc.Refines): beside the
// implementation's state, each specification's state (a component named after it), the spec
// step this step matched and, where the step was refused, the step and what the specification
// allowed instead. The refinement check notes those on the steps of a recorded trace, and
// tracefmt.SpecSteps reads them as the views do, so the scope needs no re-run.

// specVars lists the scope's variables at h.pos: each specification's state, then what the
// step showed it.
func (s *Session) specVars(h handle) []dap.Variable {
	var out []dap.Variable
	for _, n := range h.node.kids {
		out = append(out, s.variable(n, h.pos))
	}
	p := h.pos
	if p.Step == 0 || p.Inside() {
		return out
	}
	for _, sp := range tracefmt.SpecSteps(s.tr.t, p.Step) {
		if sp.Matched != "" {
			out = append(out, dap.Variable{Name: sp.Spec + " matched", Value: sp.Matched})
		}
		if sp.Refused != "" {
			out = append(out, dap.Variable{Name: sp.Spec + " refused", Value: sp.Refused})
		}
		for i, a := range sp.Allowed {
			out = append(out, dap.Variable{Name: fmt.Sprintf("%s allows #%d", sp.Spec, i+1), Value: a})
		}
	}
	return out
}
