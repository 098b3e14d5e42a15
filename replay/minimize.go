package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
)

// MinimizeStates is the default bound of the breadth-first search Minimize tries first.
const MinimizeStates = 1_000_000

// Minimize returns a trace, as short as it can find, that ends in the same violation as t (the
// same Violation.Signature). m makes a fresh instance of t's model for each run.
//
// It first searches breadth-first, no deeper than t, for the shortest path to that violation.
// When that search is too big (more than maxStates states; 0: MinimizeStates), it deletes steps
// from t instead (delta
// debugging): it drops chunks of steps, halving the chunks, for as long as the rest still ends in
// the violation. A step whose event is no longer enabled after a deletion is skipped, and a
// stored Choose value that no longer fits is clamped, so the result is 1-minimal: dropping any one
// of its steps loses the violation. The result is recorded afresh (sites, notes, hashes,
// changes) and proven by replaying it. shortest says the breadth-first search found it: no
// shorter trace ends in the violation.
func Minimize(m func() *cmc.Model, t *engine.Trace, maxStates int64) (out *engine.Trace, shortest bool, err error) {
	if maxStates <= 0 {
		maxStates = MinimizeStates
	}
	v := t.Violation
	switch {
	case v == nil:
		return nil, false, errors.New("minimize: the trace has no violation to keep")
	case v.Kind == "hang" || v.Kind == "crash":
		return nil, false, fmt.Errorf("minimize: a trace that ends in a %s cannot be re-run in this process", v.Kind)
	}
	res, err := engine.Check(context.Background(), m(), engine.Options{Search: "bfs", All: true,
		MaxDepth: len(t.Steps), MaxStates: maxStates})
	if err != nil {
		return nil, false, fmt.Errorf("minimize: %w", err)
	}
	for _, found := range res.Violations {
		if found.Violation.Signature == v.Signature && len(found.Steps) <= len(t.Steps) {
			out, shortest = found, true
			break
		}
	}
	if out == nil {
		if out, err = deleteSteps(m(), t); err != nil {
			return nil, false, fmt.Errorf("minimize: %w", err)
		}
	}
	out.Params = t.Params
	// Prove it: the result must replay and end in the violation.
	s, err := Open(m(), out)
	if s != nil {
		s.Close()
	}
	if err != nil {
		return nil, false, fmt.Errorf("minimize: the shortened trace does not replay: %w", err)
	}
	return out, shortest, nil
}

// deleteSteps shortens t by delta debugging (Zeller's ddmin, deleting complements).
func deleteSteps(m *cmc.Model, t *engine.Trace) (*engine.Trace, error) {
	mc, init, err := engine.NewMachine(m)
	if err != nil {
		return nil, err
	}
	defer mc.Close()
	sig := t.Violation.Signature
	steps, v := reach(mc, init, t.Steps, sig)
	if v == nil {
		return nil, fmt.Errorf("the trace does not end in its violation (%s) now: replay it to see where it diverges", describeViolation(t.Violation))
	}
	for n := 2; len(steps) >= 2; {
		chunk := (len(steps) + n - 1) / n
		shorter := false
		for start := 0; start < len(steps); start += chunk {
			cand := slices.Concat(steps[:start], steps[min(start+chunk, len(steps)):])
			if got, gv := reach(mc, init, cand, sig); gv != nil {
				steps, v, shorter = got, gv, true
				break
			}
		}
		switch {
		case shorter:
			n = max(n-1, 2)
		case n >= len(steps):
			n = len(steps) + 1 // every single step was tried: 1-minimal
		default:
			n = min(2*n, len(steps))
		}
		if n > len(steps) {
			break
		}
	}
	out, _, _, err := mc.Record(init, steps)
	if err != nil {
		return nil, err
	}
	out.Violation = v
	return out, nil
}

// reach runs steps leniently from init: a step whose event is gone or not enabled is skipped, a
// Choose value that no longer fits is clamped, a missing one is 0. It stops at the first
// violation and returns the steps it ran (with the values used) and the violation, when its
// signature is sig.
func reach(mc *engine.Machine, init engine.State, steps []engine.Step, sig string) ([]engine.Step, *engine.Violation) {
	s := init
	var ran []engine.Step
	for i := range steps {
		st := &steps[i]
		ei, ev := mc.Event(st.Proc, st.Event)
		if ev == nil {
			continue
		}
		enabled, fail, err := mc.Enabled(s)
		if err != nil {
			return nil, nil
		}
		if fail != nil {
			return matching(ran, failureViolation(fail), sig)
		}
		if !slices.Contains(enabled, ei) {
			continue
		}
		if err := mc.Load(s); err != nil {
			return nil, nil
		}
		before := mc.CaptureStep()
		out := mc.RunChoosing(ei, false, func(i, n int) int {
			if i < len(st.Choices) {
				return min(st.Choices[i].Value, n-1)
			}
			return 0
		})
		step := engine.Step{Proc: st.Proc, Event: st.Event}
		for _, p := range out.Points {
			step.Choices = append(step.Choices, engine.Choice{Value: p.Value, N: p.N})
		}
		ran = append(ran, step)
		if out.Failure != nil {
			return matching(ran, failureViolation(out.Failure), sig)
		}
		next, err := mc.Capture(s, ev.Touches)
		if err != nil {
			return nil, nil
		}
		v, err := mc.Verdict(next, before)
		if err != nil {
			return nil, nil
		}
		if v != nil {
			return matching(ran, v, sig)
		}
		s = next
	}
	return nil, nil
}

func matching(ran []engine.Step, v *engine.Violation, sig string) ([]engine.Step, *engine.Violation) {
	if v.Signature != sig {
		return nil, nil
	}
	return ran, v
}
