package dap

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc/engine"
	"github.com/google/go-dap"
)

// The Specification scope, for a model that refines a specification (cmc.Refines): beside the
// implementation's state, each specification's state (a component named after it), the spec
// step this step matched and, where the step was refused, the step and what the specification
// allowed instead. The refinement check notes those on the steps of a recorded trace (notes
// whose kind begins with "spec", To naming the specification), so the scope needs no re-run.

// specNames lists the specifications the trace's notes name, in order of first appearance.
func (tr *trace) specNames() []string {
	var names []string
	for _, st := range tr.t.Steps {
		for _, n := range st.Notes {
			if engine.IsSpecNote(n) && !slices.Contains(names, n.To) {
				names = append(names, n.To)
			}
		}
	}
	return names
}

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
	allowed := map[string]int{}
	for _, n := range s.tr.step(p.Step).Notes {
		if !engine.IsSpecNote(n) {
			continue
		}
		v := dap.Variable{Value: n.Msg}
		switch n.Kind {
		case engine.NoteSpec:
			v.Name = n.To + " matched"
		case engine.NoteSpecRefused:
			v.Name = n.To + " refused"
		case engine.NoteSpecAllows:
			allowed[n.To]++
			v.Name = fmt.Sprintf("%s allows #%d", n.To, allowed[n.To])
		}
		out = append(out, v)
	}
	return out
}
