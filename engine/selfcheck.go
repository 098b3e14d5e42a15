package engine

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
)

// The self-check. The checker explores the program Go runs only if capture is faithful: running a
// handler on the objects the previous handler left must give the same state as running it on the
// state restored from their capture. Whatever canon does not see (a closure over a sub-object, a
// package-level variable, capacity, sharing between components) breaks that, and so does a handler
// that is not a function of the state (map iteration order, the clock, randomness, goroutines).
// The self-check tests exactly this on a sample of transitions: it runs the next event three times,
// on the live objects and twice on restored copies, and compares the captured results. Two
// restored runs that differ are nondeterminism; a live run that differs from both is a capture
// fault. It also captures every component in one capture, which finds objects shared with a
// component the event did not touch, and changes to components the event did not declare.

const (
	// DefaultSelfCheck is how many transitions a search self-checks when Options.SelfCheck is 0.
	DefaultSelfCheck = 2000
	// SelfCheckAll self-checks every transition.
	SelfCheckAll = math.MaxInt64
)

// selfCheckLimit is the number of transitions to self-check.
func (o *Options) selfCheckLimit() int64 {
	if o.SelfCheck == 0 {
		return DefaultSelfCheck
	}
	return max(o.SelfCheck, 0)
}

// A fault is what the self-check found: a violation of kind capture-fault or nondeterminism.
type fault = Violation

// selfCheck runs right after event ev's handler, on the objects it left; next holds the capture of
// the components ev touches. probe picks which enabled event to run next (rotating over the sample
// covers every event). begin is called before the probe runs, since it may hang or crash the
// process; when it returns false the probe is not run and selfCheck returns the event it would have
// run (a reproduction stops there). It returns a fault, or an error for a modelling error (sharing,
// Touches). It leaves every component marked as not loaded.
func (mc *Machine) selfCheck(next State, ev *cmc.Event, probe int64, begin func() bool) (*fault, *cmc.Event, error) {
	// The caller's Outcome still reads the Choose points of the run it checks: probes get their own.
	saved := *mc.ctx
	mc.ctx.points = nil
	defer func() {
		*mc.ctx = saved
		mc.unload()
	}()
	all, err := mc.CaptureAll()
	if err != nil {
		return nil, nil, err
	}
	if ev != nil {
		for i := range all {
			if all[i] != next[i] && !slices.Contains(ev.Touches, i) {
				c := mc.Def.Components[i].Name
				diff := mc.difference(next, Outcome{}, all, Outcome{}, "before", "after")
				return nil, nil, fmt.Errorf("event %s.%s changed %s, which it does not declare (%s): add cmc.Touches(%q) to the event (the self-check found it; see docs/checkable-code.md)", ev.Proc, ev.Name, c, diff, c)
			}
		}
	}
	if f := mc.staleWrite(ev); f != nil {
		return f, nil, nil
	}
	// A set's order is not state: give the live objects the order a restore would, so that
	// choosing "the first element" picks the same one in both runs.
	if err := mc.enc.SortSets(mc.allRoots()); err != nil {
		return nil, nil, err
	}
	enabled, fail := mc.enabledLive(nil)
	if fail != nil || len(enabled) == 0 {
		return nil, nil, nil // a failing condition: the search reports it from the restored state
	}
	pe := mc.Def.Events[enabled[probe%int64(len(enabled))]]
	if !begin() {
		return nil, pe, nil
	}
	live, liveOut, err := mc.probe(pe)
	if err != nil {
		return nil, nil, err
	}
	from := "the initial state"
	if ev != nil {
		from = "the state after " + ev.Label
	}
	if ev == nil {
		mc.keepBuilderObjects()
	}
	var runs [2]State
	var outs [2]Outcome
	for i := range runs {
		mc.unload()
		if err := mc.Load(all); err != nil {
			return nil, nil, err
		}
		if i == 0 {
			if restored, fail := mc.enabledLive(nil); fail == nil && !slices.Equal(restored, enabled) {
				return NewViolation("capture-fault", "", fmt.Sprintf(
					"on %s, the events enabled on the objects the last handler left (%s) differ from those enabled on its restored copy (%s): an enabling condition reaches something the state does not hold, such as a package-level value compared by identity",
					from, mc.labels(enabled), mc.labels(restored)), ""), nil, nil
			}
		}
		if runs[i], outs[i], err = mc.probe(pe); err != nil {
			return nil, nil, err
		}
	}
	// The live run differs: before calling that a capture fault, run the restored copy a few more
	// times, since two runs of a nondeterministic handler can agree by chance.
	for k := 0; k < 3 && sameRun(runs[0], outs[0], runs[1], outs[1]) && !sameRun(live, liveOut, runs[0], outs[0]); k++ {
		mc.unload()
		if err := mc.Load(all); err != nil {
			return nil, nil, err
		}
		if runs[1], outs[1], err = mc.probe(pe); err != nil {
			return nil, nil, err
		}
	}
	switch {
	case !sameRun(runs[0], outs[0], runs[1], outs[1]):
		return NewViolation("nondeterminism", pe.Label, fmt.Sprintf(
			"%s run twice on %s gives two different results (%s): the handler depends on something that is not state: map iteration order (range over slices.Sorted(maps.Keys(m))), the clock, randomness or goroutines",
			pe.Label, from, mc.difference(runs[0], outs[0], runs[1], outs[1], "first", "second")), pe.File), nil, nil
	case !sameRun(live, liveOut, runs[0], outs[0]):
		return NewViolation("capture-fault", pe.Label, fmt.Sprintf(
			"%s gives a different result on the objects the last handler left than on %s restored from its capture (%s): the handler reaches something the state does not hold: a closure over part of a component (capture the root and navigate from it), a package-level variable, or memory shared in a way canon does not see",
			pe.Label, from, mc.difference(live, liveOut, runs[0], outs[0], "live", "restored")), pe.File), nil, nil
	}
	return mc.staleWrite(pe), nil, nil
}

// keepBuilderObjects keeps, before the first restore, shallow copies of the roots: they hold the
// objects the model's builder made, which a restore detaches from the state. Nothing of the model
// should reach those objects afterwards; a handler closure that captured one (n := s.Node) does.
// A footprint recorded while the builder's objects were live (a probe that left a component as
// it was) would restore them, not detach them: a handler then writing one through the root is no
// fault, so those footprints are forgotten and the next restore decodes.
func (mc *Machine) keepBuilderObjects() {
	for i := range mc.live {
		mc.live[i].fp.Clear()
		mc.live[i].id = dirty
	}
	roots := mc.allRoots()
	for i := range roots {
		c := reflect.New(roots[i].V.Type().Elem())
		c.Elem().Set(roots[i].V.Elem())
		roots[i].V = c
	}
	keep := make([][]byte, len(roots))
	if mc.builderEnc.EncodeComponents(roots, func(i int, b []byte) { keep[i] = slices.Clone(b) }, nil) != nil {
		return // they cannot be captured (they share objects, say): nothing to compare with
	}
	mc.builder, mc.builderBytes = roots, keep
}

// staleWrite reports a capture fault when ev wrote to the builder's detached objects.
func (mc *Machine) staleWrite(ev *cmc.Event) *fault {
	if mc.builder == nil || ev == nil {
		return nil
	}
	same := make([]bool, len(mc.builder))
	// emit may be called again for a component (array mode): the last call holds.
	err := mc.builderEnc.EncodeComponents(mc.builder, func(i int, b []byte) { same[i] = bytes.Equal(b, mc.builderBytes[i]) }, nil)
	if err != nil || !slices.Contains(same, false) {
		return nil
	}
	mc.builder = nil // report it once
	return NewViolation("capture-fault", ev.Label, fmt.Sprintf(
		"%s wrote to an object the model's builder made that the state no longer holds (the state is restored into new objects between transitions): a handler closure that captured part of a component (n := s.Node; func() { n.V++ }) keeps writing the old object, as would a package-level variable holding one; capture the component's root and navigate from it (s.Node.V++)",
		ev.Label), ev.File)
}

// probePosition names the self-check's probe after the transition at pos (the initial state's:
// State 0, Event -1) for Options.Begin and Reproduce: its Attempt is -1 minus the transition's.
func probePosition(pos Position) Position {
	return Position{State: pos.State, Event: pos.Event, Attempt: -1 - pos.Attempt}
}

// beginProbe publishes the probe's position, or returns false when a reproduction stops there.
func (s *search) beginProbe(pos Position) bool {
	if r := s.opts.Reproduce; r != nil && r.Position == pos {
		return false
	}
	s.begin(pos)
	return true
}

// selfCheckAfter self-checks the transition at pos, which reached next along path (nil for the
// initial state: the path is rebuilt only when needed). It reports a fault, or the probe a
// reproduction stopped at, as a violation, and returns whether it did.
func (s *search) selfCheckAfter(pos Position, next State, ev *cmc.Event, path func() []pathStep) (bool, error) {
	s.checked++
	pp := probePosition(pos)
	f, stop, err := s.mc.selfCheck(next, ev, s.checked, func() bool { return s.beginProbe(pp) })
	switch {
	case err != nil:
		return false, err
	case stop != nil:
		ei, _ := s.mc.Event(stop.Proc, stop.Name)
		r := s.opts.Reproduce
		s.report(append(path(), pathStep{event: ei}), NewViolation(r.Kind, "", r.Message, stop.File))
		s.stop = true
		return true, nil
	case f != nil:
		s.report(path(), f)
		return true, nil
	}
	return false, nil
}

func (mc *Machine) labels(evs []int) string {
	if len(evs) == 0 {
		return "none"
	}
	var l []string
	for _, i := range evs {
		l = append(l, mc.Def.Events[i].Label)
	}
	return strings.Join(l, ", ")
}

// probe runs ev with every Choose at 0 on the loaded state and captures the whole state after it.
func (mc *Machine) probe(ev *cmc.Event) (State, Outcome, error) {
	out := mc.Run(ev, nil, false, nil)
	out.Points = slices.Clone(out.Points)
	if out.Failure != nil {
		return nil, out, nil
	}
	s, err := mc.CaptureAll()
	if err != nil {
		return nil, out, fmt.Errorf("after %s: %w", ev.Label, err)
	}
	return s, out, nil
}

// allRoots lists every component's root.
func (mc *Machine) allRoots() []canon.Root {
	roots := make([]canon.Root, len(mc.Def.Components))
	for i, c := range mc.Def.Components {
		roots[i] = canon.Root{Name: c.Name, V: c.Root}
	}
	return roots
}

// unload marks every component as not loaded, so the next Load restores them all.
func (mc *Machine) unload() {
	for i := range mc.loaded {
		mc.loaded[i] = dirty
	}
}

func sameRun(a State, ao Outcome, b State, bo Outcome) bool {
	if (ao.Failure == nil) != (bo.Failure == nil) || !slices.Equal(a, b) || len(ao.Points) != len(bo.Points) {
		return false
	}
	// Two failures are the same if they are the same kind at the same line: a message may name a
	// goroutine or an address, which differ from run to run.
	if ao.Failure != nil && (ao.Failure.Kind != bo.Failure.Kind || ao.Failure.Site != bo.Failure.Site) {
		return false
	}
	for i := range ao.Points {
		if ao.Points[i].N != bo.Points[i].N || ao.Points[i].PC != bo.Points[i].PC {
			return false
		}
	}
	return true
}

// difference says how two runs differ, naming them an and bn: their failures, their Choose calls
// or the first paths whose values differ.
func (mc *Machine) difference(a State, ao Outcome, b State, bo Outcome, an, bn string) string {
	switch {
	case ao.Failure != nil || bo.Failure != nil:
		return fmt.Sprintf("%s: %s; %s: %s", an, failureText(ao.Failure), bn, failureText(bo.Failure))
	case len(ao.Points) != len(bo.Points):
		return fmt.Sprintf("%s made %d Choose calls, %s %d", an, len(ao.Points), bn, len(bo.Points))
	}
	for i := range ao.Points {
		if ao.Points[i] != bo.Points[i] {
			return fmt.Sprintf("Choose call %d: %s at %s with %d options, %s at %s with %d", i+1,
				an, Site(ao.Points[i].PC), ao.Points[i].N, bn, Site(bo.Points[i].PC), bo.Points[i].N)
		}
	}
	la, errA := mc.leavesOf(a)
	lb, errB := mc.leavesOf(b)
	if errA != nil || errB != nil {
		return "the states differ"
	}
	changes := canon.Diff(la, lb)
	var parts []string
	for i, c := range changes {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(changes)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s is %s %s, %s %s", c.Path, orNone(c.Old), an, orNone(c.New), bn))
	}
	if len(parts) == 0 {
		var comps []string
		for i := range a {
			if a[i] != b[i] {
				comps = append(comps, mc.Def.Components[i].Name)
			}
		}
		return "the states differ only in what no path shows, a slice's capacity or which values are one object, in " + strings.Join(comps, ", ")
	}
	return strings.Join(parts, "; ")
}

func (mc *Machine) leavesOf(s State) ([]canon.Leaf, error) {
	mc.unload()
	return mc.Leaves(s)
}

func failureText(f *Failure) string {
	if f == nil {
		return "no failure"
	}
	return f.Kind + " " + f.Message
}

func orNone(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}
