package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
)

// Data slicing and value bounds (the thesis, section 3.5). A model may bound an integer field
// (cmc.Model.Bound): a state where a value goes beyond its bound is cut like a constraint cuts
// it. And SuggestOmissions finds fields that behave like counters, statistics or timestamps and
// suggests leaving them out of the state (cmc.Model.Omit), with the evidence; it leaves nothing
// out itself.

// bounds are the model's bounds, checked on the live state.
type bounds struct {
	max     map[FieldRef]int64
	values  map[FieldRef]int // Distinct: how many values along a path
	visitor *fieldVisitor
}

// checkBounds refuses bounds that can never hold anything: a type not reachable from the state
// or a field that is not an integer (a typo must not pass as a bound that never cuts).
func (mc *Machine) checkBounds() error {
	if len(mc.Def.Bounds) == 0 {
		return nil
	}
	var refs []FieldRef
	max, values := map[FieldRef]int64{}, map[FieldRef]int{}
	for _, b := range mc.Def.Bounds {
		ref := FieldRef{b.Type, b.Field}
		found, maybe, kind := false, false, reflect.Kind(0)
		for _, c := range mc.Def.Components {
			f, m, k := typeHasField(c.Root.Type(), ref, map[reflect.Type]bool{})
			found, maybe = found || f, maybe || m
			if f {
				kind = k
				break
			}
		}
		switch {
		case found && !isInteger(kind):
			return fmt.Errorf("model %s: %s: %s is a %s, not an integer: a bound is the largest value of an integer field", mc.Def.Name, b, ref, kind)
		case !found && !maybe:
			return fmt.Errorf("model %s: %s: no value of type %s with field %s is reachable from the model's state: name the type as cmc.TypeName[T]() does", mc.Def.Name, b, b.Type, b.Field)
		}
		refs = append(refs, ref)
		switch m, ok := max[ref]; {
		case b.Values > 0:
			if v, ok := values[ref]; !ok || b.Values < v {
				values[ref] = b.Values
			}
		case !ok || b.Max < m:
			max[ref] = b.Max // the tighter of two bounds on one field
		}
	}
	mc.bounds = &bounds{max: max, values: values, visitor: newFieldVisitor(mc.Def, refs)}
	return nil
}

// noteValues adds the values the Distinct bounds watch, as the live state holds them, to the
// values seen on the path (cmc.ValuesSeen): after every handler run, and on the initial state.
func (mc *Machine) noteValues() {
	if mc.Def.Seen == nil || (mc.bounds == nil && mc.checkBounds() != nil) {
		return // Check refuses the model
	}
	seen := mc.Def.Seen.Seen
	mc.bounds.visitor.visit(func(f FieldRef, path string, x reflect.Value) {
		if _, ok := mc.bounds.values[f]; !ok {
			return
		}
		list := seen[path]
		if i, found := slices.BinarySearch(list, intOf(x)); !found {
			seen[path] = slices.Insert(list, i, intOf(x))
		}
	})
}

// beyondBounds reports whether a value of the live state is above its bound.
func (mc *Machine) beyondBounds() bool {
	if mc.bounds == nil {
		if len(mc.Def.Bounds) == 0 || mc.checkBounds() != nil {
			return false // Check refused the model already
		}
	}
	beyond := false
	mc.bounds.visitor.visit(func(f FieldRef, path string, x reflect.Value) {
		if n, ok := mc.bounds.values[f]; ok {
			beyond = beyond || len(mc.Def.Seen.Seen[path]) > n
			return
		}
		beyond = beyond || intOf(x) > mc.bounds.max[f]
	})
	return beyond
}

// boundRules lists the bounds for the run summary, after the rules.
func (mc *Machine) boundRules() []string {
	var out []string
	for _, b := range mc.Def.Bounds {
		out = append(out, b.String())
	}
	return out
}

// A Suggestion is a field that behaved like a counter, a statistic or a timestamp on a random
// walk, with the evidence: leaving it out of the state (Code) would merge states that differ only
// in it. Nothing is left out until the user adds Code to the model.
type Suggestion struct {
	FieldRef
	Instances int     `json:"instances"` // values of the type that hold the field
	Changes   int     `json:"changes"`   // steps of the walk that changed it
	Values    []int64 `json:"values"`    // distinct values seen, the first 10 in order
	Distinct  int     `json:"distinct"`  // how many distinct values
	Samples   int     `json:"samples"`   // states where resetting it to 0 was tried
	Why       string  `json:"why"`
	Code      string  `json:"code,omitempty"` // what the model adds to accept it
}

// A Slicing is what SuggestOmissions found: the fields to leave out, and the counters it kept,
// each with the reason.
type Slicing struct {
	Steps    int          `json:"steps"` // of the walk
	Seed     uint64       `json:"seed"`
	Suggest  []Suggestion `json:"suggest"`
	Kept     []Suggestion `json:"kept"` // grew like counters, but the model reads them
	Bounded  []string     `json:"bounded,omitempty"`
	Examined int          `json:"examined"` // integer fields watched
}

// The rule, in numbers: a field is a candidate when, along the walk, it changed at least
// minChanges times and never went down (every change of every instance was an increase); it is
// suggested when resetting every instance to 0 in up to maxSamples states where it was not 0
// changed neither which events are enabled nor, for each enabled event (its first Choose
// values), what the step did to the rest of the state.
const (
	minChanges = 3
	maxSamples = 8
)

// SuggestOmissions walks the model at random (steps steps from seed, as the random search does)
// and applies the rule above to every integer field of the state. The model must be fresh (it
// is run).
func SuggestOmissions(ctx context.Context, m *cmc.Model, steps int, seed uint64) (*Slicing, error) {
	if steps <= 0 {
		steps = 2000
	}
	if seed == 0 {
		seed = 1
	}
	mc, init, err := newMachine(m, true)
	if err != nil {
		return nil, err
	}
	defer mc.Close()
	sl := &Slicing{Steps: steps, Seed: seed}
	all := integerFields(mc.Def)
	sl.Examined = len(all)
	v := newFieldVisitor(mc.Def, all)
	v.write = true

	type instance struct {
		last    int64
		changes int
		down    bool
	}
	type field struct {
		inst     map[string]*instance
		values   []int64
		distinct map[int64]bool
		changes  int
		down     bool
		samples  []State // states where some instance is not 0
	}
	fields := map[FieldRef]*field{}
	observe := func(st State) {
		nonzero := map[FieldRef]bool{}
		v.visit(func(f FieldRef, path string, x reflect.Value) {
			fd := fields[f]
			if fd == nil {
				fd = &field{inst: map[string]*instance{}, distinct: map[int64]bool{}}
				fields[f] = fd
			}
			n := intOf(x)
			if !fd.distinct[n] {
				fd.distinct[n] = true
				if len(fd.values) < 10 {
					fd.values = append(fd.values, n)
				}
			}
			in := fd.inst[path]
			switch {
			case in == nil:
				fd.inst[path] = &instance{last: n}
			case n != in.last:
				in.changes++
				fd.changes++
				if n < in.last {
					in.down, fd.down = true, true
				}
				in.last = n
			}
			nonzero[f] = nonzero[f] || n != 0
		})
		for f, nz := range nonzero {
			if fd := fields[f]; nz { // at most one per step of the walk
				fd.samples = append(fd.samples, slices.Clone(st))
			}
		}
	}

	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	st := init
	if err := mc.Load(st); err != nil {
		return nil, err
	}
	observe(st)
	for n := 0; n < steps && ctx.Err() == nil; n++ {
		enabled, fail, err := mc.Enabled(st)
		if err != nil {
			return nil, err
		}
		if fail != nil || len(enabled) == 0 {
			break
		}
		ev := mc.Def.Events[enabled[rng.IntN(len(enabled))]]
		if err := mc.Load(st); err != nil {
			return nil, err
		}
		if out := mc.Run(ev, nil, false, rng.IntN); out.Failure != nil {
			break // a violation: the walk ends, as the random search's does
		}
		if st, err = mc.Capture(st, ev.Touches); err != nil {
			return nil, err
		}
		if err := mc.Load(st); err != nil {
			return nil, err
		}
		observe(st)
		if mc.cut() {
			break
		}
	}

	refs := make([]FieldRef, 0, len(fields))
	for f := range fields {
		refs = append(refs, f)
	}
	slices.SortFunc(refs, func(a, b FieldRef) int { return strings.Compare(a.String(), b.String()) })
	for _, f := range refs {
		fd := fields[f]
		if fd.changes < minChanges || fd.down {
			continue
		}
		sug := Suggestion{FieldRef: f, Instances: len(fd.inst), Changes: fd.changes, Values: fd.values, Distinct: len(fd.distinct)}
		read, err := mc.readsField(f, fd.samples, &sug)
		if err != nil {
			return nil, err
		}
		grew := fmt.Sprintf("it changed %d times on a walk of %d steps and only ever increased (%d distinct values)", fd.changes, steps, len(fd.distinct))
		if read != "" {
			sug.Why = grew + ", but " + read
			sl.Kept = append(sl.Kept, sug)
			continue
		}
		sug.Why = grew + fmt.Sprintf(", and resetting it to 0 in %d states changed neither which events were enabled nor what any of them did to the rest of the state: it looks like a counter, a statistic or a timestamp", sug.Samples)
		sug.Code = fmt.Sprintf("m.Omit(%q, %q)", f.Type, f.Field)
		sl.Suggest = append(sl.Suggest, sug)
	}
	sl.Bounded = mc.boundRules()
	return sl, nil
}

// integerFields lists every integer field of every struct type reachable from the model's
// components by their types (behind interfaces, only what the walk meets is watched: none).
func integerFields(def *cmc.Definition) []FieldRef {
	var out []FieldRef
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			name := canon.TypeName(t)
			for i := range t.NumField() {
				f := t.Field(i)
				if isInteger(f.Type.Kind()) {
					out = append(out, FieldRef{name, f.Name})
				} else {
					walk(f.Type)
				}
			}
		}
	}
	for _, c := range def.Components {
		walk(c.Root.Type())
	}
	return out
}

// readsField tries to reset every instance of f to 0 in up to maxSamples of the states given,
// spread over them. It returns how the model read f, "" when it did not show.
func (mc *Machine) readsField(f FieldRef, states []State, sug *Suggestion) (string, error) {
	v := newFieldVisitor(mc.Def, []FieldRef{f})
	v.write = true
	reset := func() { v.visit(func(_ FieldRef, _ string, x reflect.Value) { x.SetZero() }) }
	step := max(1, len(states)/maxSamples)
	for i := 0; i < len(states) && sug.Samples < maxSamples; i += step {
		s := states[i]
		sug.Samples++
		// As the state is, and with f reset: which events are enabled.
		mc.unload()
		want, fail, err := mc.Enabled(s)
		if err != nil || fail != nil {
			return "", err
		}
		want = slices.Clone(want)
		mc.unload()
		if err := mc.Load(s); err != nil {
			return "", err
		}
		reset()
		got, _ := mc.enabledLive(nil)
		if !slices.Equal(want, got) {
			return fmt.Sprintf("with it reset to 0 the enabled events are %s instead of %s: an enabling condition reads it", mc.labels(got), mc.labels(want)), nil
		}
		for _, ei := range want {
			ev := mc.Def.Events[ei]
			a, aFail, err := mc.runFrom(s, ev, false, reset)
			if err != nil {
				return "", err
			}
			b, bFail, err := mc.runFrom(s, ev, true, reset)
			if err != nil {
				return "", err
			}
			if !slices.Equal(a, b) || aFail != bFail {
				return fmt.Sprintf("with it reset to 0, %s changes the rest of the state differently: its handler reads it", ev.Label), nil
			}
		}
	}
	mc.unload()
	return "", nil
}

// runFrom runs ev from s (its first Choose values), with f reset first when resetFirst, and
// returns the state after it with f reset (so the two runs compare the rest of the state) and
// the kind of its failure, if any.
func (mc *Machine) runFrom(s State, ev *cmc.Event, resetFirst bool, reset func()) (State, string, error) {
	mc.unload()
	if err := mc.Load(s); err != nil {
		return nil, "", err
	}
	if resetFirst {
		reset()
	}
	out := mc.Run(ev, nil, false, nil)
	if out.Failure != nil {
		mc.unload()
		return nil, out.Failure.Kind, nil
	}
	reset()
	next, err := mc.CaptureAll()
	mc.unload()
	return next, "", err
}
