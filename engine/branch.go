package engine

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc"
)

// What if a step had gone differently? Alternatives lists what step k of a trace could have been
// from the same state (another value of one of its Choose calls, or another enabled event), and
// Branch makes the trace that takes one of them instead: the same first k-1 steps, then the
// alternative, recorded as a check records steps and judged as a check judges them, so a
// violation the alternative causes at once is the new trace's.

// An Alternative is another way a step could have gone.
type Alternative struct {
	Proc  string `json:"proc"`
	Event string `json:"event"`
	// Values are the first Choose values to run the event with; a later call takes its first
	// value (0).
	Values []int `json:"values,omitempty"`
	// What says what differs, in the user's words: "Choose #1 at air.go:150 = 0 of 2: deliver
	// RREP B→A" or "C.link to D fails instead".
	What string `json:"what"`
}

// Alternatives lists the other ways step k (1-based) of t could have gone: each other value of
// each of its Choose calls (the calls before it keeping theirs), labelled as the model labels
// its choices, then each other event enabled in the state before it, in the model's order.
func Alternatives(m *cmc.Model, t *Trace, k int) ([]Alternative, error) {
	mc, _, s, _, err := replayTo(m, t, k)
	if err != nil {
		return nil, err
	}
	defer mc.Close()
	st := &t.Steps[k-1]
	ei, ev := mc.Event(st.Proc, st.Event)
	var out []Alternative
	taken := st.Values()
	for j, c := range st.Choices {
		for v := range c.N {
			if v == taken[j] {
				continue
			}
			values := append(slices.Clone(taken[:j]), v)
			if err := mc.Load(s); err != nil {
				return nil, err
			}
			run := mc.Run(ev, values, true, nil)
			if len(run.Points) <= j || (run.Failure != nil && run.Failure.Kind == "diverged") {
				continue // the code no longer makes this call
			}
			p := run.Points[j]
			what := fmt.Sprintf("Choose #%d at %s = %d of %d", j+1, ShortSite(Site(p.PC)), v, p.N)
			if p.Label != "" {
				what += ": " + p.Label
			}
			out = append(out, Alternative{Proc: st.Proc, Event: st.Event, Values: values, What: what})
		}
	}
	enabled, fail, err := mc.Enabled(s)
	if err != nil {
		return nil, err
	}
	if fail != nil {
		return out, nil // the state fails as it is: no other event to take
	}
	for _, e := range enabled {
		if e == ei {
			continue
		}
		ev := mc.Def.Events[e]
		out = append(out, Alternative{Proc: ev.Proc, Event: ev.Name, What: ev.Proc + "." + ev.Name + " instead"})
	}
	return out, nil
}

// Branch returns the trace that takes t's first k-1 steps and then alternative a as step k. Its
// violation is the one that step causes (a failure in the handler, a broken invariant, a
// deadlock), if any.
func Branch(m *cmc.Model, t *Trace, k int, a Alternative) (*Trace, error) {
	mc, init, s, path, err := replayTo(m, t, k)
	if err != nil {
		return nil, err
	}
	defer mc.Close()
	ei, ev := mc.Event(a.Proc, a.Event)
	if ev == nil {
		return nil, fmt.Errorf("the model has no event %s.%s", a.Proc, a.Event)
	}
	enabled, _, err := mc.Enabled(s)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(enabled, ei) {
		return nil, fmt.Errorf("%s.%s is not enabled before step %d", a.Proc, a.Event, k)
	}
	if err := mc.Load(s); err != nil {
		return nil, err
	}
	before := mc.CaptureStep()
	run := mc.Run(ev, a.Values, false, nil)
	path = append(path, pathStep{event: ei, values: values(run.Points)})
	v := (*Violation)(nil)
	if f := run.Failure; f != nil {
		v = NewViolation(f.Kind, "", f.Message, f.Site)
	}
	if v == nil {
		v = mc.StepVerdict(before)
	}
	tr, last, out, err := mc.record(init, path)
	if err != nil {
		return nil, err
	}
	if v == nil && out.Failure == nil {
		if v, err = mc.Verdict(last, nil); err != nil {
			return nil, err
		}
	}
	tr.Params, tr.Violation = t.Params, v
	return tr, nil
}

// replayTo replays the first k-1 steps of t in a new machine of m and returns the initial state,
// the state they reach and their path.
func replayTo(m *cmc.Model, t *Trace, k int) (*Machine, State, State, []pathStep, error) {
	if k < 1 || k > len(t.Steps) {
		return nil, nil, nil, nil, fmt.Errorf("no step %d: the trace has %d", k, len(t.Steps))
	}
	mc, init, err := NewMachine(m)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	s := init
	var path []pathStep
	for i := range k - 1 {
		st := &t.Steps[i]
		next, out, err := mc.Apply(s, i+1, st, false)
		if err == nil && out.Failure != nil {
			err = fmt.Errorf("step %d fails now: %s", i+1, out.Failure.Message)
		}
		if err != nil {
			mc.Close()
			return nil, nil, nil, nil, err
		}
		ei, _ := mc.Event(st.Proc, st.Event)
		path = append(path, pathStep{event: ei, values: st.Values()})
		s = next
	}
	return mc, init, s, path, nil
}
