package replay

import (
	"fmt"

	"github.com/cmc-go/cmc/engine"
)

// A Summary is what opening a trace proved: how far it replays, where it diverged, and whether its
// violation still happens.
type Summary struct {
	Model    string `json:"model"`
	Steps    int    `json:"steps"`    // in the trace
	Replayed int    `json:"replayed"` // steps replay was asked for (OpenTo)
	// Verified is the last step whose state matched the stored one (0: the initial state; -1:
	// not even that).
	Verified   int               `json:"verified"`
	Divergence *Divergence       `json:"divergence,omitempty"`
	Violation  *engine.Violation `json:"violation,omitempty"` // what the trace ends in
	Found      *engine.Violation `json:"found,omitempty"`     // what replay found at its end
	Reproduced bool              `json:"reproduced"`          // Found has Violation's signature
	Note       string            `json:"note,omitempty"`
}

// Summary says what opening the trace proved.
func (s *Session) Summary() Summary {
	sum := Summary{Model: s.t.Model, Steps: len(s.t.Steps), Replayed: s.upto, Verified: s.good, Divergence: s.div,
		Violation: s.t.Violation, Found: s.found, Note: s.note}
	sum.Reproduced = s.t.Violation != nil && s.found != nil && s.found.Signature == s.t.Violation.Signature
	return sum
}

// OK reports whether the replay held: every replayed step matched and, when the whole trace was
// replayed, its violation happened again.
func (s Summary) OK() bool {
	return s.Divergence == nil
}

// Describe says in words what replay proved about the trace named what (e.g. `trace 3
// (AODVSpecBug)`): the line the command line prints.
func (s Summary) Describe(what string) string {
	if d := s.Divergence; d != nil {
		if d.Kind == "violation" {
			return fmt.Sprintf("replayed %s of %s: %s", steps(s.Steps), what, d.Reason)
		}
		return fmt.Sprintf("%s\nreplayed %d of %d steps of %s before that", d.Error(), max(d.Step-1, 0), s.Steps, what)
	}
	head := fmt.Sprintf("replayed %s of %s: every state hash matches", steps(s.Replayed), what)
	if s.Replayed < s.Steps {
		head = fmt.Sprintf("replayed %d of %d steps of %s: every state hash matches", s.Replayed, s.Steps, what)
	}
	switch {
	case s.Note != "":
		return head + "; " + s.Note
	case s.Replayed < s.Steps:
		return head
	case s.Reproduced:
		return head + "; the violation reproduces: " + describeViolation(s.Found)
	case s.Found != nil:
		return head + "; it ends in " + describeViolation(s.Found)
	}
	return head + "; the trace records no violation"
}

func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}
