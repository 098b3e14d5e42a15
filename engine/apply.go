package engine

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc/canon"

	"github.com/cmc-go/cmc"
)

// Event finds an event by process and name.
func (mc *Machine) Event(proc, name string) (int, *cmc.Event) {
	for i, e := range mc.Def.Events {
		if e.Proc == proc && e.Name == name {
			return i, e
		}
	}
	return -1, nil
}

// A Divergence says where a stored trace no longer matches what the code does.
type Divergence struct {
	Step   int // 1-based
	Reason string
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("replay diverged at step %d: %s", d.Step, d.Reason)
}

// Apply runs stored step st (number n, 1-based, for messages) from state s with the step's Choose
// values, and returns the state after it. It reports a Divergence when the event is gone, is not
// enabled, or the handler now makes different Choose calls. A handler failure is returned in the
// outcome, not as an error: the last step of a trace may be exactly that.
func (mc *Machine) Apply(s State, n int, st *Step, noting bool) (State, Outcome, error) {
	_, ev := mc.Event(st.Proc, st.Event)
	if ev == nil {
		return nil, Outcome{}, &Divergence{n, fmt.Sprintf("the model has no event %s.%s now", st.Proc, st.Event)}
	}
	if err := mc.Load(s); err != nil {
		return nil, Outcome{}, err
	}
	if ev.Enabled != nil {
		on, fail := mc.enabled(ev)
		if fail != nil {
			return nil, Outcome{Failure: fail}, nil
		}
		if !on {
			return nil, Outcome{}, &Divergence{n, fmt.Sprintf("event %s.%s is not enabled here now", st.Proc, st.Event)}
		}
	}
	values := st.Values()
	out := mc.Run(ev, values, noting, nil)
	if out.Failure != nil && out.Failure.Kind == "diverged" {
		return nil, out, &Divergence{n, out.Failure.Message}
	}
	if out.Failure == nil && len(out.Points) != len(values) {
		site := ""
		switch {
		case len(out.Points) > len(values):
			site = " (a new Choose at " + Site(out.Points[len(values)].PC) + ")"
		case len(out.Points) > 0:
			site = " (the last one now at " + Site(out.Points[len(out.Points)-1].PC) + ")"
		}
		return nil, out, &Divergence{n, fmt.Sprintf("%s.%s made %d Choose calls, the trace recorded %d%s", st.Proc, st.Event, len(out.Points), len(values), site)}
	}
	if out.Failure != nil {
		return nil, out, nil
	}
	next, err := mc.Capture(s, ev.Touches)
	return next, out, err
}

// enabled evaluates an event's enabling condition, guarding against panics in it.
func (mc *Machine) enabled(ev *cmc.Event) (on bool, fail *Failure) {
	fail, _ = mc.Guard("enabling condition of", ev.Label, func() error {
		on = ev.Enabled()
		return nil
	})
	return on, fail
}

// stepOf makes a trace step from a run's outcome.
func stepOf(ev *cmc.Event, out Outcome) Step {
	st := Step{Proc: ev.Proc, Event: ev.Name, Notes: append([]Note(nil), out.Notes...)}
	if ev.File != "" {
		st.Site = fmt.Sprintf("%s:%d", ev.File, ev.Line)
	}
	for _, p := range out.Points {
		st.Choices = append(st.Choices, Choice{Value: p.Value, N: p.N, Site: Site(p.PC), Label: p.Label})
	}
	return st
}

// Note is a fact about a step (see cmc.Note).
type Note = cmc.Note

// record builds the full trace along a path of (event, values) from init: it re-runs every step
// with notes on, filling in Choose sites, notes, state hashes and changes.
//
// A step's changes are a diff of the components its event touches only: the others are the same
// bytes, so their leaves are kept from step to step. Components share no objects (each is
// decoded on its own), so a component's leaves are the same alone as in the whole state.
func (mc *Machine) record(init State, path []pathStep) (*Trace, State, Outcome, error) {
	t := &Trace{Model: mc.Def.Name, InitHash: Hash(mc.Hash(init))}
	for _, c := range mc.Def.Components {
		if c.Shared {
			t.Env = append(t.Env, c.Name)
		} else {
			t.Procs = append(t.Procs, c.Name)
		}
	}
	s := init
	var out Outcome
	if err := mc.Load(s); err != nil {
		return nil, nil, out, err
	}
	comps := make([][]canon.Leaf, len(mc.Def.Components))
	for i := range comps {
		comps[i] = mc.componentLeaves(i)
		t.Init = append(t.Init, comps[i]...)
	}
	for i, p := range path {
		ev := mc.Def.Events[p.event]
		if err := mc.Load(s); err != nil {
			return nil, nil, out, err
		}
		out = mc.Run(ev, p.values, true, nil)
		st := stepOf(ev, out)
		if out.Failure != nil {
			if i != len(path)-1 {
				return nil, nil, out, fmt.Errorf("step %d failed while recording the trace: %s", i+1, out.Failure.Message)
			}
			t.Steps = append(t.Steps, st)
			return t, s, out, nil
		}
		next, err := mc.Capture(s, ev.Touches)
		if err != nil {
			return nil, nil, out, err
		}
		st.Hash = Hash(mc.Hash(next))
		if err := mc.Load(next); err != nil {
			return nil, nil, out, err
		}
		st.Changes = mc.diffTouched(comps, ev.Touches)
		t.Steps = append(t.Steps, st)
		s = next
	}
	return t, s, out, nil
}

// diffTouched replaces the kept leaves of the touched components with the loaded state's and
// returns the changes in canon.Diff's order for the whole state: added and changed paths in
// order, then removed ones.
func (mc *Machine) diffTouched(comps [][]canon.Leaf, touched []int) []canon.Change {
	touched = slices.Sorted(slices.Values(touched))
	var changes, removed []canon.Change
	for _, i := range touched {
		after := mc.componentLeaves(i)
		for _, c := range canon.Diff(comps[i], after) {
			if c.Kind == "removed" {
				removed = append(removed, c)
			} else {
				changes = append(changes, c)
			}
		}
		comps[i] = after
	}
	return append(changes, removed...)
}

// componentLeaves flattens component i of the loaded state.
func (mc *Machine) componentLeaves(i int) []canon.Leaf {
	c := mc.Def.Components[i]
	return canon.NewGraph([]canon.Root{{Name: c.Name, V: c.Root}}).Leaves()
}

// pathStep is a step as the search stores it: an event index and Choose values.
type pathStep struct {
	event  int
	values []int
}

// Graph returns the heap graph of state s (it loads s).
func (mc *Machine) Graph(s State) (*canon.Graph, error) {
	if err := mc.Load(s); err != nil {
		return nil, err
	}
	return canon.NewGraph(mc.allRoots()), nil
}

// Leaves returns state s flattened by path (it loads s).
func (mc *Machine) Leaves(s State) ([]canon.Leaf, error) {
	g, err := mc.Graph(s)
	if err != nil {
		return nil, err
	}
	return g.Leaves(), nil
}
