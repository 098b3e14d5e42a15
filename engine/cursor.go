package engine

import "fmt"

// A Cursor is a place in a trace, the one position type of every front end (the DAP session,
// replay, the views). It is after step Step (0: the initial state) when Choice is 0, or inside
// step Step, stopped at its Choice-th Choose call (1-based, in call order) before that call
// returns; the state there is the one before the step, partly changed by its handler.
//
// Moving a cursor only reads the trace; a replay re-runs handlers to show where it lands.
type Cursor struct {
	Step   int `json:"step"`
	Choice int `json:"choice,omitempty"`
}

// After is the cursor after step n.
func After(n int) Cursor { return Cursor{Step: n} }

// Inside reports whether the cursor is at a Choose call inside its step.
func (c Cursor) Inside() bool { return c.Choice > 0 }

// Shown is the step whose state the cursor shows: inside a step, the one before it.
func (c Cursor) Shown() int {
	if c.Inside() {
		return c.Step - 1
	}
	return c.Step
}

// Compare orders cursors as the trace runs: a step's Choose calls in order, then its end.
func (c Cursor) Compare(d Cursor) int {
	switch {
	case c.Step != d.Step:
		return cmpInt(c.Step, d.Step)
	case c.Choice == d.Choice:
		return 0
	case c.Choice == 0: // after the step: later than each of its Choose calls
		return 1
	case d.Choice == 0:
		return -1
	}
	return cmpInt(c.Choice, d.Choice)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c Cursor) String() string {
	if c.Inside() {
		return fmt.Sprintf("step %d, choice %d", c.Step, c.Choice)
	}
	return fmt.Sprintf("step %d", c.Step)
}

// End is the cursor after the trace's last step.
func (t *Trace) End() Cursor { return After(len(t.Steps)) }

// Check says why c is not a place in t, or returns nil.
func (t *Trace) Check(c Cursor) error {
	switch {
	case c.Step < 0 || c.Step > len(t.Steps):
		return fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", c.Step, len(t.Steps))
	case c.Choice < 0 || c.Step == 0 && c.Choice > 0 || c.Step > 0 && c.Choice > len(t.Steps[c.Step-1].Choices):
		return fmt.Errorf("%s: step %d has no such Choose call", c, c.Step)
	}
	return nil
}

// Call is the Choose call the cursor is stopped at, or nil after a step.
func (t *Trace) Call(c Cursor) *Choice {
	if !c.Inside() {
		return nil
	}
	return &t.Steps[c.Step-1].Choices[c.Choice-1]
}

// Made is the Choose calls of the cursor's step that have run: all of them after the step, and
// up to the current one inside it.
func (t *Trace) Made(c Cursor) []Choice {
	if c.Step == 0 {
		return nil
	}
	cs := t.Steps[c.Step-1].Choices
	if c.Inside() {
		cs = cs[:c.Choice]
	}
	return cs
}

// StepIn is the next place in the trace: the next Choose call of the step, else its end; from
// the end of a step, the next step's first Choose call, else its end. It is false at the end of
// the trace. Continue walks the trace with it.
func (t *Trace) StepIn(c Cursor) (Cursor, bool) {
	switch {
	case c.Inside() && c.Choice < len(t.Steps[c.Step-1].Choices):
		return Cursor{c.Step, c.Choice + 1}, true
	case c.Inside():
		return After(c.Step), true
	case c.Step >= len(t.Steps):
		return c, false
	case len(t.Steps[c.Step].Choices) > 0:
		return Cursor{c.Step + 1, 1}, true
	}
	return After(c.Step + 1), true
}

// StepInBack is StepIn in reverse: the place before c, false at the initial state. Reverse
// continue walks the trace with it.
func (t *Trace) StepInBack(c Cursor) (Cursor, bool) {
	switch {
	case c.Choice > 1:
		return Cursor{c.Step, c.Choice - 1}, true
	case c.Inside():
		return After(c.Step - 1), true
	case c.Step == 0:
		return c, false
	case len(t.Steps[c.Step-1].Choices) > 0:
		return Cursor{c.Step, len(t.Steps[c.Step-1].Choices)}, true
	}
	return After(c.Step - 1), true
}

// StepOver finishes the step the cursor is inside, or else runs the next step whole (DAP's next
// and stepOut). It is false at the end of the trace.
func (t *Trace) StepOver(c Cursor) (Cursor, bool) {
	switch {
	case c.Inside():
		return After(c.Step), true
	case c.Step < len(t.Steps):
		return After(c.Step + 1), true
	}
	return c, false
}

// StepBack goes to the state before the cursor's step: after the previous step, also from
// inside a step. It is false at the initial state.
func (t *Trace) StepBack(c Cursor) (Cursor, bool) {
	if c.Step == 0 {
		return c, false
	}
	return After(c.Step - 1), true
}
