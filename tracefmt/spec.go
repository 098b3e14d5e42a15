package tracefmt

import (
	"slices"

	"github.com/cmc-go/cmc/engine"
)

// A SpecStep is what one specification the model refines (cmc.Refines) made of a step, read from
// the notes the refinement check left on it: the spec step it matched, or the step it refused
// and every move the specification allowed there instead. The debugger's Specification scope and
// the views' Specification section show it.
type SpecStep struct {
	Spec    string   `json:"spec"`              // the specification's name, a root of the state
	Matched string   `json:"matched,omitempty"` // "RCR+: sca,tlu → Opened"
	Refused string   `json:"refused,omitempty"` // "in Opened: RTA with tld,scr reaching Opened"
	Allowed []string `json:"allowed,omitempty"` // where it refused: "RTA: tld,scr → Req-Sent", …
}

// Specs lists the specifications t's notes name, in order of first appearance.
func Specs(t *engine.Trace) []string {
	var names []string
	for _, st := range t.Steps {
		for _, n := range st.Notes {
			if engine.IsSpecNote(n) && !slices.Contains(names, n.To) {
				names = append(names, n.To)
			}
		}
	}
	return names
}

// SpecSteps is what each specification made of step (1-based) of t, in the order of Specs; a
// specification the step did not move (a stutter, or an invisible step) has neither Matched nor
// Refused. None for step 0 or a trace without specifications.
func SpecSteps(t *engine.Trace, step int) []SpecStep {
	if step <= 0 || step > len(t.Steps) {
		return nil
	}
	names := Specs(t)
	out := make([]SpecStep, len(names))
	for i, name := range names {
		out[i].Spec = name
	}
	for _, n := range t.Steps[step-1].Notes {
		if !engine.IsSpecNote(n) {
			continue
		}
		s := &out[slices.Index(names, n.To)]
		switch n.Kind {
		case engine.NoteSpec:
			s.Matched = n.Msg
		case engine.NoteSpecRefused:
			s.Refused = n.Msg
		case engine.NoteSpecAllows:
			s.Allowed = append(s.Allowed, n.Msg)
		}
	}
	return out
}
