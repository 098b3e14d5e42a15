package engine

import (
	"errors"
	"fmt"
	"slices"
)

// Every reported trace is verified before it is reported: the search re-runs its path from the
// initial state and checks that each state on it is one the search stored, and that the last step
// ends in the same violation. A trace that does not reproduce would contradict itself in the
// debugger; it is reported instead as nondeterminism, naming the step and, where a re-run can
// tell, the cause.

// reproduce re-runs path and returns nil when it shows v, or a nondeterminism violation for the
// first step where it does not, with the path up to that step.
func (s *search) reproduce(path []pathStep, v *Violation) ([]pathStep, *Violation) {
	mc := s.mc
	switch v.Kind {
	case "hang", "crash", "nondeterminism":
		return path, nil // the last step cannot be run again, or is already this finding
	case "guide":
		return path, nil // a function only searches call (a score, a scenario) failed: no verdict sees it
	}
	st := s.init
	for i, p := range path {
		last := i == len(path)-1
		ev := mc.Def.Events[p.event]
		if err := mc.Load(st); err != nil {
			return path, nil
		}
		var before []any
		if last {
			before = mc.CaptureStep()
		}
		next, out, err := mc.Apply(st, i+1, &Step{Proc: ev.Proc, Event: ev.Name, Choices: choices(p.values)}, false)
		var d *Divergence
		switch {
		case errors.As(err, &d):
			return path[:i+1], s.nondeterminism(path, i, st, d.Reason, v)
		case err != nil:
			return path, nil // a capture error: the search reported that one itself
		case out.Failure != nil && !last:
			return path[:i+1], s.nondeterminism(path, i, st, "it now fails: "+out.Failure.Message, v)
		case out.Failure != nil:
			if got := NewViolation(out.Failure.Kind, "", out.Failure.Message, out.Failure.Site); got.Signature != v.Signature && v.Kind != "capture-fault" {
				return path, s.nondeterminism(path, i, st, fmt.Sprintf("it now ends in %s: %s", got.Kind, got.Message), v)
			}
			return path, nil
		}
		// Every state on the path was stored by the search, and so was the last when the violation
		// is one of the state itself.
		stored := !last || v.Kind == "invariant" || v.Kind == "deadlock"
		if i >= len(s.prefix) && stored && !s.visited.has(mc.Hash(next), next.key(nil)) {
			return path[:i+1], s.nondeterminism(path, i, st, "it reaches a state the search never reached", v)
		}
		if last && v.Kind != "capture-fault" {
			got, err := mc.Verdict(next, before)
			if err != nil {
				return path, nil
			}
			if got == nil || got.Signature != v.Signature {
				what := "no violation"
				if got != nil {
					what = got.Kind + ": " + got.Message
				}
				return path, s.nondeterminism(path, i, st, "it now ends in "+what, v)
			}
		}
		st = next
	}
	if len(path) == 0 && v.Kind != "capture-fault" {
		if err := mc.Load(st); err == nil {
			if got, err := mc.Verdict(st, nil); err == nil && (got == nil || got.Signature != v.Signature) {
				return path, NewViolation("nondeterminism", "", "the initial state no longer shows "+v.Kind+" "+v.Message+": something outside the state changed (a package-level variable?)", "")
			}
		}
	}
	return path, nil
}

func choices(values []int) []Choice {
	c := make([]Choice, len(values))
	for i, v := range values {
		c[i] = Choice{Value: v}
	}
	return c
}

// nondeterminism describes step i of path that did not do again what the search saw, trying to
// say why: a step that does something else each time it runs depends on something that is not
// state; a check (invariant, enabling condition) that changes the state is named.
func (s *search) nondeterminism(path []pathStep, i int, from State, what string, v *Violation) *Violation {
	ev := s.mc.Def.Events[path[i].event]
	cause := s.cause(from)
	return NewViolation("nondeterminism", ev.Label, fmt.Sprintf("the trace to %s %q does not reproduce: step %d (%s) %s; %s",
		v.Kind, v.Message, i+1, ev.Label, what, cause), ev.File)
}

// cause runs the invariants and enabling conditions on state from, to name one that changes the
// state; otherwise the handler itself is the suspect.
func (s *search) cause(from State) string {
	mc := s.mc
	mc.unload()
	if err := mc.Load(from); err != nil {
		return "the cause is unknown"
	}
	before, err := mc.CaptureAll()
	if err != nil {
		return "the cause is unknown"
	}
	for _, inv := range mc.Def.Invariants {
		mc.Guard("invariant", inv.Name, inv.Check)
		if after, err := mc.CaptureAll(); err == nil && !slices.Equal(before, after) {
			return fmt.Sprintf("the invariant %s changes the state, and invariants must only read it", inv.Name)
		}
	}
	for _, e := range mc.Def.Events {
		if e.Enabled != nil {
			mc.enabled(e)
			if after, err := mc.CaptureAll(); err == nil && !slices.Equal(before, after) {
				return fmt.Sprintf("the enabling condition of %s changes the state, and conditions must only read it", e.Label)
			}
		}
	}
	return "the handler depends on something that is not state: map iteration order (range over slices.Sorted(maps.Keys(m))), the clock, randomness, goroutines or a package-level variable"
}
