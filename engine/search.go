package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
)

// trailEntry records how a stored state was reached, so a violation's path can be rebuilt.
type trailEntry struct {
	parent int32
	event  int32
	off    uint32 // values[off:off+n] are the step's Choose values
	n      uint32
}

type search struct {
	ctx      context.Context
	mc       *Machine
	opts     Options
	res      *Result
	visited  *visited
	trail    chunked[trailEntry]
	values   chunked[int32]
	init     State      // the model's initial state
	prefix   []pathStep // from the initial state to trail root (Options.From)
	sigs     map[string]bool
	stop     bool
	prefixB  []int
	enabled  []int // scratch for the events enabled in the state being expanded
	key      []byte
	lastTick int64
	depth    int   // of the state being expanded
	next     State // scratch for the state a transition reached
	attempt  int   // of the handler run being expanded
	checked  int64 // transitions self-checked
	// frontierBytes is the most memory the states waiting to be expanded took at once.
	frontierBytes int64
	// spilledFrontier is the most of it that was in files at once (level.go).
	spilledFrontier int64
	limit           int64 // transitions to self-check
	// lastRun is the last handler run Begin was told of, in the search's order (parallel.go).
	lastRun Position
	hasRun  bool // lastRun names a run
	// scenarios are the model's, followed on every state stored (scenario.go).
	scenarios *scenarios
	score     []int // best-first: the score of the state being expanded (best.go)
	// forked is a depth-first search's helper, which expands states that wait on the stack
	// (forked.go).
	forked *forked
	later  deferred // successors whose visited lookup waits for its cache line (deferred.go)
	// defers: the search's new states need nothing but their ids once judged (bfs, dfs), so their
	// lookups may wait (deferred.go).
	defers bool
}

// Check explores the model and reports what it found. It returns an error when the model cannot
// be checked at all: it does not build, its state cannot be captured, or a From prefix no longer
// replays.
func Check(ctx context.Context, m *cmc.Model, opts Options) (*Result, error) {
	limit := opts.selfCheckLimit()
	// The self-check of the initial state compares the objects the model's builder made with
	// their restored copy, so those must not be restored first.
	mc, init, err := newMachine(m, limit == 0)
	if err != nil {
		return nil, err
	}
	defer mc.Close()
	if err := mc.checkBounds(); err != nil {
		return nil, err
	}
	s := &search{ctx: ctx, mc: mc, opts: opts, init: init, sigs: map[string]bool{},
		res: &Result{Exact: opts.Exact}, visited: newVisited(opts.Exact), limit: limit}
	defer s.free()
	if s.scenarios, err = newScenarios(mc.Def, opts); err != nil {
		return nil, err
	}
	if limit > 0 {
		s.checked-- // the initial state is not a transition
		found, err := s.selfCheckAfter(Position{State: 0, Event: -1, Attempt: 0}, init, nil, func() []pathStep { return nil })
		if err != nil {
			return nil, fmt.Errorf("from the initial state: %w", err)
		}
		if found {
			return s.res, nil
		}
	}
	start, err := s.startState()
	if err != nil {
		return nil, err
	}
	s.trail.add(trailEntry{parent: -1})
	s.visited.add(mc.Hash(start), start.key(nil))
	s.res.States = 1
	if err := mc.Load(start); err != nil {
		return nil, err
	}
	if v := s.mc.StateVerdict(); v != nil {
		s.violation(0, nil, v)
	} else if s.sometimes(0); !s.stop {
		switch opts.Search {
		case "", "bfs":
			err = s.bfs(start)
		case "dfs":
			err = s.dfs(start)
		case "random":
			err = s.walk(start)
		case "best":
			err = s.best(start)
		case "deepen":
			err = s.deepen(start)
		case "swarm":
			err = s.swarm(start)
		default:
			return nil, fmt.Errorf("unknown search %q: use bfs, dfs, random, best, deepen or swarm", opts.Search)
		}
	}
	if err != nil {
		return nil, err
	}
	s.scenarioResults()
	if bad := canon.Unmatched(mc.Def.Rules); len(bad) > 0 {
		return nil, fmt.Errorf("model %s: %s", mc.Def.Name, strings.Join(bad, "; "))
	}
	for _, r := range mc.Def.Rules {
		s.res.Rules = append(s.res.Rules, r.String())
	}
	s.res.Rules = append(s.res.Rules, mc.boundRules()...)
	s.res.SelfChecked = s.checked
	s.res.Events = s.eventRuns()
	s.res.CollisionProbability = 0
	if !opts.Exact {
		s.res.CollisionProbability = collisionBound(s.res.States)
	}
	s.res.VisitedBytes = s.visited.bytes()
	s.res.FrontierBytes = s.frontierBytes
	s.res.StoredBytes = s.res.VisitedBytes + int64(s.trail.capacity())*int64(unsafe.Sizeof(trailEntry{})) +
		int64(s.values.capacity())*4 + int64(mc.pool.size())
	s.res.SpilledBytes = s.trail.spilled() + s.values.spilled() + s.spilledFrontier
	if err := errors.Join(s.trail.err, s.values.err); err != nil {
		return nil, err
	}
	return s.res, nil
}

// free releases the search's tables, which live off the Go heap (offheap.go).
func (s *search) free() {
	s.visited.free()
	s.trail.free()
	s.values.free()
}

// startState replays the From prefix, if any.
func (s *search) startState() (State, error) {
	from := s.opts.From
	if from == nil {
		return s.init, nil
	}
	k := s.opts.FromSteps
	if k == 0 || k > len(from.Steps) {
		k = len(from.Steps)
	}
	st := s.init
	if Hash(s.mc.Hash(st)) != from.InitHash && s.res.PrefixNote == "" {
		s.res.PrefixNote = "the initial state differs from the stored trace's (the code changed)"
		if s.opts.StrictPrefix {
			return nil, &Divergence{0, "the initial state differs from the stored trace's"}
		}
	}
	for i := range k {
		step := &from.Steps[i]
		next, out, err := s.mc.Apply(st, i+1, step, false)
		if err != nil {
			return nil, err
		}
		if out.Failure != nil {
			return nil, &Divergence{i + 1, fmt.Sprintf("%s.%s now fails: %s", step.Proc, step.Event, out.Failure.Message)}
		}
		if Hash(s.mc.Hash(next)) != step.Hash && s.res.PrefixNote == "" {
			s.res.PrefixNote = fmt.Sprintf("from step %d the states differ from the stored trace's (the code changed)", i+1)
			if s.opts.StrictPrefix {
				return nil, &Divergence{i + 1, "reaches a different state than the stored trace"}
			}
		}
		ei, _ := s.mc.Event(step.Proc, step.Event)
		s.prefix = append(s.prefix, pathStep{event: ei, values: step.Values()})
		st = next
	}
	return st, nil
}

func (s *search) bfs(start State) error {
	cur, next := newLevel(len(start)), newLevel(len(start))
	defer func() {
		s.spilledFrontier = max(s.spilledFrontier, cur.spilled()+next.spilled())
		cur.free()
		next.free()
	}()
	cur.push(0, 0, start)
	s.defers = true
	par := s.parallel()
	defer par.close()
	for depth := 0; cur.len() > 0 && !s.stop; depth++ {
		if s.opts.MaxDepth > 0 && depth >= s.opts.MaxDepth {
			return nil
		}
		s.depth = depth
		// Workers expand the level if they can (parallel.go); from the state where they cannot
		// go on, the search does, with the same result.
		from, stopped := 0, false
		var err error
		if par.use(cur.len()) {
			from, stopped, err = par.level(cur, next, depth)
		}
		if err == nil && !stopped {
			stopped, err = s.expandLevel(cur, next, depth, from)
		}
		if err != nil || stopped {
			return err
		}
		s.frontierBytes = max(s.frontierBytes, cur.bytes()+next.bytes())
		s.spilledFrontier = max(s.spilledFrontier, cur.spilled()+next.spilled())
		cur, next = next, cur
		next.reset()
	}
	s.res.Complete = !s.stop
	return nil
}

// expandLevel expands the states of a breadth-first level from index from on, in order, pushing
// the states to explore onto next. It reports whether the search stopped while expanding a state
// (a state bound the last tick found reached stops it after the next state's first transition).
func (s *search) expandLevel(cur, next *level, depth, from int) (bool, error) {
	for i := from; i < cur.len(); i++ {
		idx, _, st, err := cur.at(i)
		if err != nil {
			return false, err
		}
		err = s.expand(idx, st, func(idx int32, st State) { next.push(idx, depth+1, st) })
		if err != nil {
			return false, err
		}
		if s.stop {
			return true, nil
		}
		s.tick(depth, cur.len()-i+next.len())
	}
	return false, nil
}

func (s *search) dfs(start State) error {
	s.defers = true
	s.forked = s.fork()
	defer s.forked.close()
	return s.depthFirst(start)
}

func (s *search) depthFirst(start State) error {
	stack, succ := newFrontier(len(start)), newFrontier(len(start))
	defer func() { stack.free(); succ.free() }()
	stack.push(0, 0, start)
	emit := func(idx int32, st State) { succ.push(idx, s.depth+1, st) }
	f := s.forked
	bounded := false
	for stack.len() > 0 && !s.stop {
		// st lies in memory the stack no longer holds: nothing is pushed until it is expanded.
		idx, depth, st := stack.pop()
		if s.opts.MaxDepth > 0 && depth >= s.opts.MaxDepth {
			bounded = true
			continue
		}
		// The helper expands the states under this one meanwhile (forked.go).
		f.offer(stack, s.opts.MaxDepth)
		succ.reset()
		s.depth = depth
		helped, err := f.take(f.claim(stack.len()), emit)
		if err == nil && !helped {
			err = s.expand(idx, st, emit)
		}
		if err != nil {
			return err
		}
		// Push in reverse, so the first event's successor is explored first.
		for i := succ.len() - 1; i >= 0; i-- {
			stack.push(succ.at(i))
		}
		s.frontierBytes = max(s.frontierBytes, stack.bytes())
		s.tick(depth, stack.len())
	}
	s.res.Complete = !s.stop && !bounded
	return nil
}

// tick reports progress and honours cancellation and the state bound, every few thousand
// transitions.
func (s *search) tick(depth, frontier int) {
	if s.opts.MaxStates > 0 && s.res.States >= s.opts.MaxStates {
		s.stop = true
	}
	if s.res.Transitions>>12 == s.lastTick {
		return
	}
	s.lastTick = s.res.Transitions >> 12
	if s.ctx.Err() != nil {
		s.stop, s.res.Cancelled = true, true
	}
	if s.opts.Progress != nil {
		s.opts.Progress(s.progress(depth, frontier))
	}
}

// expand runs every enabled event of the state at trail index idx with every Choose
// combination, records each new successor, checks it, and hands those to be explored to emit.
func (s *search) expand(idx int32, st State, emit func(int32, State)) error {
	mc := s.mc
	// Evaluate every enabling condition on one load of the state: a disabled event then costs
	// no restore.
	enabled, fail, err := mc.enabledIn(s.enabled[:0], st)
	s.enabled = enabled
	if err == nil && fail == nil {
		err = s.events(idx, st, enabled, emit)
	}
	s.resolve(emit)
	if err != nil || s.stop {
		return err
	}
	if fail != nil {
		s.violation(idx, nil, NewViolation(fail.Kind, "", fail.Message, fail.Site))
		return nil
	}
	s.expanded()
	if v := mc.DeadlockVerdict(len(enabled)); v != nil {
		s.violation(idx, nil, v)
	}
	return nil
}

// events runs the events of enabled on the state st at trail index idx with every Choose
// combination, handling each successor; new ones go to emit. It returns early when the search
// stops.
func (s *search) events(idx int32, st State, enabled []int, emit func(int32, State)) error {
	mc := s.mc
	mc.hasher.from(st, mc.pool)
	for _, ei := range enabled {
		ev := mc.Def.Events[ei]
		prefix := s.prefixB[:0]
		for attempt := 0; ; attempt++ {
			if err := mc.Load(st); err != nil {
				return err
			}
			if r := s.opts.Reproduce; r != nil && r.Position == (Position{int64(idx), ei, attempt}) {
				s.resolve(emit)
				s.violation(idx, &pathStep{event: ei, values: slices.Clone(prefix)}, NewViolation(r.Kind, "", r.Message, ev.File))
				s.stop = true
				return nil
			}
			before := s.mc.CaptureStep()
			s.begin(Position{int64(idx), ei, attempt})
			s.attempt = attempt
			out := mc.explore(ev, prefix)
			s.ran(ei)
			if err := s.successor(idx, st, ei, ev, out, before, emit); err != nil {
				return err
			}
			if s.stop {
				return nil
			}
			var more bool
			prefix, more = nextPrefix(prefix, out.Points)
			if !more {
				break
			}
		}
		s.prefixB = prefix
	}
	return nil
}

// successor handles the state one handler run produced.
func (s *search) successor(idx int32, st State, ei int, ev *cmc.Event, out *Outcome, before []any, emit func(int32, State)) error {
	mc := s.mc
	step := func() *pathStep { return &pathStep{event: ei, values: values(out.Points)} }
	if f := out.Failure; f != nil {
		s.resolve(emit)
		s.violation(idx, step(), NewViolation(f.Kind, "", f.Message, f.Site))
		return nil
	}
	// Capture into scratch space: most successors were seen before and need no copy.
	s.next = append(s.next[:0], st...)
	if err := mc.capture(s.next, ev.Touches); err != nil {
		return s.captureError(idx, *step(), err)
	}
	if s.checked < s.limit {
		found, err := s.selfCheckAfter(Position{int64(idx), ei, s.attempt}, s.next, ev, func() []pathStep { return append(s.pathTo(idx), *step()) })
		if err != nil {
			return s.captureError(idx, *step(), err)
		}
		if found {
			return nil
		}
		if err := mc.Load(s.next); err != nil {
			return err
		}
	}
	if v := s.mc.StepVerdict(before); v != nil {
		s.resolve(emit)
		s.violation(idx, step(), v)
		return nil
	}
	h := mc.hasher.child(s.next, ev.Touches, mc.pool)
	if s.deferring() {
		if s.later.put(s, h, idx, ei, out.Points) {
			return nil
		}
		s.resolve(emit)
	}
	if s.visited.keyed() {
		s.key = s.next.key(s.key[:0])
	}
	if !s.visited.add(h, s.key) {
		return nil
	}
	nidx := int32(s.trail.len())
	s.trail.add(trailEntry{parent: idx, event: int32(ei), off: uint32(s.values.len()), n: uint32(len(out.Points))})
	for _, p := range out.Points {
		s.values.add(int32(p.Value))
	}
	s.res.States++
	s.res.Depth = max(s.res.Depth, s.depth+1)
	if v := s.mc.StateVerdict(); v != nil {
		s.violation(nidx, nil, v)
		return nil
	}
	if s.sometimes(nidx); s.stop {
		return nil
	}
	if mc.cut() {
		s.res.Cut++
		return nil
	}
	emit(nidx, s.next)
	return nil
}

func values(points []ChoicePoint) []int {
	v := make([]int, len(points))
	for i, p := range points {
		v[i] = p.Value
	}
	return v
}

// cut reports whether a constraint keeps the live state from being expanded.
func (mc *Machine) cut() bool {
	if mc.beyondBounds() {
		return true
	}
	for _, c := range mc.Def.Constraints {
		if fail, err := mc.Guard("constraint", c.Name, c.Check); err != nil || fail != nil {
			return true
		}
	}
	return false
}

// captureError reports a state that cannot be captured, with the path that reached it.
func (s *search) captureError(idx int32, step pathStep, err error) error {
	path := append(s.pathTo(idx), step)
	if terr := errors.Join(s.trail.err, s.values.err); terr != nil {
		return fmt.Errorf("%w (the path to it is not known: %v)", err, terr) // not a wrong one
	}
	return fmt.Errorf("after %d steps (last: %s): %w", len(path), s.mc.Def.Events[step.event].Proc+"."+s.mc.Def.Events[step.event].Name, err)
}

// pathTo rebuilds the steps from the initial state to the state at trail index idx.
func (s *search) pathTo(idx int32) []pathStep {
	var rev []pathStep
	for i := idx; i > 0; {
		t := s.trail.at(int(i))
		i = t.parent
		v := make([]int, t.n)
		for j := range v {
			v[j] = int(s.values.at(int(t.off) + j))
		}
		rev = append(rev, pathStep{event: int(t.event), values: v})
	}
	slices.Reverse(rev)
	return append(slices.Clone(s.prefix), rev...)
}

// violation records a violation found at trail index idx (after last, when given), unless one
// with the same signature was already reported.
func (s *search) violation(idx int32, last *pathStep, v *Violation) {
	if s.sigs[v.Signature] {
		return // reported: do not rebuild its path (from the trail file, once it spilled)
	}
	path := s.pathTo(idx)
	if last != nil {
		path = append(path, *last)
	}
	s.report(path, v)
}

func (s *search) report(path []pathStep, v *Violation) {
	if s.sigs[v.Signature] {
		return
	}
	// Re-running the path overwrites the Choose points of the run being expanded: keep them.
	saved := *s.mc.ctx
	s.mc.ctx.points = nil
	defer func() { *s.mc.ctx = saved }()
	if p, nd := s.reproduce(path, v); nd != nil {
		if path, v = p, nd; s.sigs[v.Signature] {
			return
		}
	}
	s.sigs[v.Signature] = true
	run := path
	if v.Kind == "hang" || v.Kind == "crash" {
		run = path[:len(path)-1] // running the last step again would hang or crash again
	}
	t, _, _, err := s.mc.record(s.init, run)
	if err == nil && len(run) < len(path) {
		last := path[len(path)-1]
		ev := s.mc.Def.Events[last.event]
		st := Step{Proc: ev.Proc, Event: ev.Name, Site: fmt.Sprintf("%s:%d", ev.File, ev.Line)}
		for _, v := range last.values {
			st.Choices = append(st.Choices, Choice{Value: v})
		}
		t.Steps = append(t.Steps, st)
	}
	if err != nil {
		t = &Trace{Model: s.mc.Def.Name}
		v.Message += " (the trace could not be recorded: " + err.Error() + ")"
	}
	t.Violation = v
	s.res.Violations = append(s.res.Violations, t)
	if !s.opts.All {
		s.stop = true
	}
}

// begin says which handler run the search's machine begins, to Options.Begin (the worker's
// position file, where its watchdog also looks for a run that hangs: parallel.go's workers record
// theirs in their slots instead).
func (s *search) begin(pos Position) {
	if s.forked != nil && s.forked.on {
		// The helper runs too (forked.go): the run is recorded in the machine's slot only.
		s.mc.slot.Begin(pos.State, pos.Event, pos.Attempt)
		s.lastRun, s.hasRun = pos, true
		return
	}
	if s.opts.Begin != nil {
		s.opts.Begin(pos.State, pos.Event, pos.Attempt)
		s.lastRun, s.hasRun = pos, true
	}
}
