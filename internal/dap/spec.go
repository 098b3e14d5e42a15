package dap

import (
	"fmt"
	"slices"
	"strings"

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
			if isSpecNote(n) && !slices.Contains(names, n.To) {
				names = append(names, n.To)
			}
		}
	}
	return names
}

func isSpecNote(n engine.Note) bool { return strings.HasPrefix(n.Kind, "spec") && n.To != "" }

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
		if !isSpecNote(n) {
			continue
		}
		v := dap.Variable{Value: n.Msg}
		switch n.Kind {
		case "spec":
			v.Name = n.To + " matched"
		case "spec-refused":
			v.Name = n.To + " refused"
		case "spec-allows":
			allowed[n.To]++
			v.Name = fmt.Sprintf("%s allows #%d", n.To, allowed[n.To])
		default:
			v.Name = n.To + " " + strings.TrimPrefix(n.Kind, "spec-")
		}
		out = append(out, v)
	}
	return out
}
