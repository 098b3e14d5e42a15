package engine

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cmc-go/cmc"
)

// Parallel breadth-first search. A level's states are cut into contiguous chunks; workers, each
// with its own instance of the model (Options.Build), its own Machine, decoder and encoder, expand
// chunks at the same time: restore a state, evaluate the enabling conditions, run every handler
// with every Choose combination, capture and hash each successor, and judge it (step invariants;
// for a successor not already in the visited set, invariants and constraints, on the objects the
// handler left, as the sequential search does). Each worker writes what it found, in order, into
// its chunk. The search's goroutine takes the chunks in chunk order and does with each record
// exactly what the sequential search does after a capture (visited set, trail, counts, reports,
// state bound, progress), so the result is the sequential search's, whatever the scheduling: the
// same states, transitions, depth, first violation and trace.
//
// The machines share one pool (pool.go), so a State means the same to all of them. User code (a
// handler, an enabling condition, an invariant) runs on every worker at once, each on its own
// instance of the model: cmc.Choose finds the machine of the goroutine that calls it
// (transition.Slot), and each machine records the handler run it begins in its slot, where the
// worker's watchdog finds the run that hangs. While workers run, Options.Begin is not called (no
// one position names what runs); Options.Concurrent says so, and a crash meanwhile is traced by
// running the search again on one goroutine. The model's code must then not share unsynchronised
// package-level state between instances outside the checked values (a cache in a package-level
// map, say): a crash that this causes is traced that way and does not happen on one goroutine,
// so the search's result is the one goroutine's.

// What the workers do past the point where the sequential search stops (a violation, the state
// bound) is thrown away. The model's own side effects there (output printed by a handler) happen
// anyway, and a worker may meet a hang or crash there first; the coordinator then re-runs the
// search sequentially to trace it (Options.Reproduce), which reaches the sequential result.
//
// The search stays on one goroutine when parallel expansion could change its result or cannot be
// set up: no Build, one worker, a Reproduce run, while the self-check samples transitions, small
// levels, a model whose states reach package-level variables (canon/globals.go: every instance
// would share them), or an instance whose initial state differs from the first's.

// minParallelLevel is the smallest level handed to workers: below it, starting them costs more
// than it saves.
const minParallelLevel = 64

type parallel struct {
	s       *search
	n       int // workers wanted
	workers []*bfsWorker
	todo    chan *chunk
	spare   []*chunk
	_       cacheLinePad
	halt    atomic.Bool // the level is over: leave the rest of the chunk; read at every state
	_       cacheLinePad
	wg      sync.WaitGroup
	off     bool     // workers are out for this search
	exit    Position // the run where a merged record says the model called runtime.Goexit
	// exitState and exitValues are that run's state and Choose values (goexit).
	exitState  State
	exitValues []int
}

// parallel returns the search's parallel expansion, or nil when the options rule it out.
func (s *search) parallel() *parallel {
	n := s.opts.Workers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if n < 2 || s.opts.Build == nil || s.opts.Reproduce != nil {
		return nil
	}
	return &parallel{s: s, n: n}
}

// use reports whether workers expand a level of states states, starting them the first time.
func (p *parallel) use(states int) bool {
	if p == nil || p.off {
		return false
	}
	s := p.s
	if s.checked < s.limit || s.mc.globals || states < minParallelLevel {
		return false
	}
	if p.workers == nil && !p.start() {
		p.off = true
		return false
	}
	return true
}

// start builds the workers' machines and starts them.
func (p *parallel) start() bool {
	workers, ok := p.machines(p.n)
	if !ok {
		return false
	}
	p.workers = workers
	p.todo = make(chan *chunk, p.window())
	for _, w := range workers {
		p.wg.Add(1)
		go w.loop(p.todo)
	}
	return true
}

// machines builds k workers, each with its own instance of the model and machine on the search's
// pool. It reports false when an instance cannot be built or differs from the first.
func (p *parallel) machines(k int) ([]*bfsWorker, bool) {
	s := p.s
	var workers []*bfsWorker
	for range k {
		m, err := p.build()
		if err != nil {
			return nil, false
		}
		mc, init, err := newMachineOn(m, true, s.mc.pool)
		if err != nil || !slices.Equal(init, s.init) || mc.globals {
			return nil, false // a builder that is not a function of its parameters, say
		}
		workers = append(workers, &bfsWorker{p: p, mc: mc, exact: s.opts.Exact, defers: s.defers, scenarios: len(s.scenarios.list) > 0,
			visited: s.visited, judged: new(recentHashes)})
	}
	s.visited.readers = true
	return workers, true
}

// build makes another instance of the model; the first one built, so a failure here is not the
// user's to see: the search goes on with one.
func (p *parallel) build() (m *cmc.Model, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("the model's builder panicked: %v", r)
		}
	}()
	m, err = p.s.opts.Build()
	if err == nil && m == nil {
		err = fmt.Errorf("the model's builder returned nil")
	}
	return m, err
}

// window is how many chunks may be handed out and not yet merged.
func (p *parallel) window() int { return 2*p.n + 2 }

// close stops the workers (they are idle between levels).
func (p *parallel) close() {
	if p == nil || p.todo == nil {
		return
	}
	close(p.todo)
	p.todo = nil
	p.wg.Wait()
	for _, w := range p.workers {
		w.mc.Close()
	}
}

// A chunk is a run of consecutive states of a level and what expanding them found, in order.
type chunk struct {
	first int      // the level index of the first state
	idx   []int32  // the states' trail indexes
	ids   []uint32 // their component ids, one state after another
	recs  []record
	odd   []oddity       // what records rarely carry (a failure, violation, error)
	succ  []uint32       // successors' component ids, for the records with one
	vals  []int32        // Choose values of the runs
	scen  []scenarioEval // what the model's scenarios said of new successors, each one's in turn
	// globals: a capture met a package-level variable; the search expands the chunk itself.
	globals bool
	done    chan struct{}
}

func (c *chunk) reset() {
	c.idx, c.ids, c.succ, c.vals, c.scen, c.recs = c.idx[:0], c.ids[:0], c.succ[:0], c.vals[:0], c.scen[:0], c.recs[:0]
	c.globals = false
	clear(c.odd)
	c.odd = c.odd[:0]
}

// addOdd appends record r, which carries odd.
func (c *chunk) addOdd(r record, odd oddity) {
	c.odd = append(c.odd, odd)
	r.odd = int32(len(c.odd))
	c.recs = append(c.recs, r)
}

// oddOf returns what record r rarely carries; nothing, for most.
func (c *chunk) oddOf(r *record) *oddity {
	if r.odd == 0 {
		return &noOddity
	}
	return &c.odd[r.odd-1]
}

// oddFor returns what record r rarely carries, to be written.
func (c *chunk) oddFor(r *record) *oddity {
	if r.odd == 0 {
		c.odd = append(c.odd, oddity{})
		r.odd = int32(len(c.odd))
	}
	return &c.odd[r.odd-1]
}

type recordKind uint8

const (
	recRun      recordKind = iota // a handler run
	recFail                       // an enabling condition failed
	recDeadlock                   // no event enabled, and the model makes that an error
	recEnd                        // the state is expanded
	recErr                        // the worker could not go on: err
	recGoexit                     // the model's code called runtime.Goexit
)

// A record is one thing the sequential search would do, in its order. It holds no pointer, and
// what few records carry is in the chunk's odd list: the helper of a depth-first search writes a
// job's records on one core and the search reads them on the other (forked.go), a line moved for
// every 64 bytes (88 a record before, 48 now).
type record struct {
	kind    recordKind
	seen    bool // the successor was already in the visited set
	cut     bool // a constraint keeps the successor from being expanded
	inRun   bool // recGoexit: inside a handler run
	judging bool // recGoexit: in a check of what the run event/attempt left (an invariant, say)
	state   int32
	event   int32
	attempt int32
	vOff    uint32 // vals[vOff:vOff+vN] are the run's Choose values
	vN      uint32
	sOff    uint32 // succ[sOff:sOff+k] is the successor
	scOff   uint32 // scen[scOff:] is what the scenarios said of it, when it is new and keeps the invariants
	odd     int32  // 1 + its index in the chunk's odd list, or 0 (chunk.oddOf)
	hash    uint64
}

// An oddity is what a record rarely carries.
type oddity struct {
	fail *Failure   // of the run, or of the enabling conditions
	viol *Violation // a step invariant's, or the deadlock
	inv  *Violation // an invariant's on the new state
	err  error      // the capture's, or recErr's
}

var noOddity oddity // never written

// level expands the states of cur with the workers, merging their chunks in order. It returns
// the index of the first state the search itself must expand (cur.len() when the workers did
// them all) and whether the search stopped.
func (p *parallel) level(cur, next *level, depth int) (from int, stopped bool, err error) {
	s := p.s
	n := cur.len()
	size := min(max(n/(8*p.n), 16), 256)
	var queue []*chunk
	p.halt.Store(false)
	if c := s.opts.Concurrent; c != nil {
		c(true)
		defer c(false)
	}
	drain := func() {
		p.halt.Store(true)
		for _, c := range queue {
			<-c.done
			p.spare = append(p.spare, c)
		}
		queue = nil
		s.visited.settle()
	}
	defer drain()
	issued := 0
	for issued < n || len(queue) > 0 {
		for issued < n && len(queue) < p.window() {
			c := p.chunk()
			c.first = issued
			for i := issued; i < min(issued+size, n); i++ {
				idx, _, st, err := cur.at(i)
				if err != nil {
					return 0, false, err
				}
				c.idx = append(c.idx, idx)
				c.ids = append(c.ids, st...)
			}
			issued += len(c.idx)
			queue = append(queue, c)
			p.todo <- c
		}
		c := queue[0]
		queue = queue[1:]
		<-c.done
		p.exit = Position{State: -1}
		stopped, redo, err := p.merge(c, cur, next, depth)
		p.spare = append(p.spare, c)
		switch {
		case p.exit.State >= 0:
			// The model's code called runtime.Goexit where the sequential search would have run
			// it: end this goroutine as it would have, once no worker runs, with that run
			// published last.
			drain()
			p.goexit()
		case err != nil:
			return 0, false, err
		case stopped:
			return n, true, nil
		case redo:
			// A capture met a package-level variable: from this chunk on, one instance.
			p.off = true
			return c.first, false, nil
		}
	}
	return n, false, nil
}

func (p *parallel) chunk() *chunk {
	if k := len(p.spare); k > 0 {
		c := p.spare[k-1]
		p.spare = p.spare[:k-1]
		c.reset()
		return c
	}
	return &chunk{done: make(chan struct{}, 1)}
}

// merge does what the sequential search does with each record of c, in order. It reports whether
// the search stopped, or whether c must be expanded again by the search itself (redo).
func (p *parallel) merge(c *chunk, cur, next *level, depth int) (stopped, redo bool, err error) {
	s := p.s
	if c.globals {
		return false, true, nil
	}
	push := func(idx int32, st State) { next.push(idx, depth+1, st) }
	prefetching := s.defers && s.visited.large() // deferred.go
	for ri := range c.recs {
		if ahead := ri + mergeAhead; prefetching && ahead < len(c.recs) && !c.recs[ahead].seen {
			prefetch(s.visited.slot(c.recs[ahead].hash))
		}
		r := &c.recs[ri]
		i := int(r.state)
		if r.kind == recEnd {
			s.expanded()
			if s.stop {
				return true, false, nil
			}
			s.tick(depth, cur.len()-(c.first+i)+next.len())
			continue
		}
		if stopped, err := p.take(c, r, c.idx[i], depth, push); stopped || err != nil {
			return stopped, false, err
		}
	}
	return false, false, nil
}

// mergeAhead is how many records ahead of the one it takes merge asks for the visited set's cache
// line.
const mergeAhead = 8

// take does what the sequential search does with record r of c, about the state at trail index
// idx and depth depth: a new successor goes to push. It reports whether the search stopped.
func (p *parallel) take(c *chunk, r *record, idx int32, depth int, push func(int32, State)) (stopped bool, err error) {
	s := p.s
	switch r.kind {
	case recFail:
		f := c.oddOf(r).fail
		s.violation(idx, nil, NewViolation(f.Kind, "", f.Message, f.Site))
	case recDeadlock:
		s.violation(idx, nil, c.oddOf(r).viol)
	case recErr:
		return false, c.oddOf(r).err
	case recGoexit:
		p.exit, p.exitState = s.lastRun, nil
		if r.inRun || r.judging {
			p.exit = Position{int64(idx), int(r.event), int(r.attempt)}
		}
		if r.inRun {
			k := len(s.init)
			p.exitState = State(c.ids[int(r.state)*k : int(r.state+1)*k])
			p.exitValues = p.exitValues[:0]
			for _, v := range c.vals[r.vOff : r.vOff+r.vN] {
				p.exitValues = append(p.exitValues, int(v))
			}
		}
		return true, nil
	case recRun:
		s.ran(int(r.event))
		s.lastRun, s.hasRun = Position{int64(idx), int(r.event), int(r.attempt)}, true
		step := func() *pathStep {
			v := make([]int, r.vN)
			for j := range v {
				v[j] = int(c.vals[int(r.vOff)+j])
			}
			return &pathStep{event: int(r.event), values: v}
		}
		odd := c.oddOf(r)
		switch {
		case odd.fail != nil:
			s.violation(idx, step(), NewViolation(odd.fail.Kind, "", odd.fail.Message, odd.fail.Site))
		case odd.err != nil:
			return false, s.captureError(idx, *step(), odd.err)
		case odd.viol != nil:
			s.violation(idx, step(), odd.viol)
		case r.seen:
		default:
			k := len(s.init)
			st := State(c.succ[r.sOff : int(r.sOff)+k : int(r.sOff)+k])
			if s.visited.keyed() {
				s.key = st.key(s.key[:0])
			}
			if !s.visited.add(r.hash, s.key) {
				break
			}
			nidx := int32(s.trail.len())
			s.trail.add(trailEntry{parent: idx, event: r.event, off: uint32(s.values.len()), n: r.vN})
			for _, v := range c.vals[r.vOff : r.vOff+r.vN] {
				s.values.add(v)
			}
			s.res.States++
			s.res.Depth = max(s.res.Depth, depth+1)
			if odd.inv != nil {
				s.violation(nidx, nil, odd.inv)
				break
			}
			if len(s.scenarios.list) > 0 {
				if s.scenariosAt(nidx, func(i int) scenarioEval { return c.scen[int(r.scOff)+i] }); s.stop {
					return true, nil
				}
			}
			if r.cut {
				s.res.Cut++
			} else {
				push(nidx, st)
			}
		}
	}
	return s.stop, nil
}

// A bfsWorker expands chunks with its own machine.
type bfsWorker struct {
	p     *parallel
	mc    *Machine
	exact bool
	// unordered: the search merges the worker's records in another order than it made them
	// (forked.go), so judged keeps only successors found in the visited set.
	unordered bool
	// The search's, read at every run: copied here, off the cache lines the search writes.
	defers    bool
	scenarios bool
	visited   *visited
	enabled   []int
	prefix    []int
	next      State
	before    []any
	state     int32 // the state being expanded, in its chunk
	run       Position
	inRun     bool
	judging   bool  // checking what the last run left
	running   []int // the Choose values the run under way began with
	// judged remembers the hashes of successors the worker found in the visited set or handed
	// over for it. A worker takes chunks in order, and the search merges them in order, so by the
	// time the search reaches a later successor with one of these hashes, the earlier one is in
	// the visited set: the later one needs no invariants, no constraints and no copy. Most
	// successors of a breadth-first level are reached from several states of the level before,
	// and the visited set has them only once their chunk is merged; and most were reached shortly
	// before, so this table, which stays in the core's cache, spares a miss to memory in the
	// visited table's.
	judged *recentHashes
	later  []int    // the records of the state's runs whose lookups wait (deferred.go)
	_      [32]byte // 256 bytes in all (padded.go)
}

// recentHashes is a small direct-mapped set of hashes: a newer hash takes an older one's slot.
type recentHashes [1 << 14]uint64

func (j *recentHashes) has(h uint64) bool { h = max(h, 1); return j[h&(uint64(len(j))-1)] == h } // 0 as visited has it

func (j *recentHashes) add(h uint64) { h = max(h, 1); j[h&(uint64(len(j))-1)] = h }

func (w *bfsWorker) loop(todo <-chan *chunk) {
	defer w.p.wg.Done()
	for c := range todo {
		w.chunk(c, todo)
		c.done <- struct{}{}
	}
}

// chunk expands c's states, recording what the sequential search would do with each.
func (w *bfsWorker) chunk(c *chunk, todo <-chan *chunk) {
	finished := false
	defer func() {
		if !finished && w.unwound(c, recover()) {
			c.done <- struct{}{}
			w.p.wg.Add(1)
			go w.loop(todo)
		}
	}()
	k := len(w.mc.Def.Components)
	w.later = w.later[:0]
	for i := range c.idx {
		if w.p.halt.Load() {
			break
		}
		w.state = int32(i)
		if !w.expand(c, c.idx[i], State(c.ids[i*k:(i+1)*k:(i+1)*k])) {
			break
		}
		c.recs = append(c.recs, record{kind: recEnd, state: int32(i)})
	}
	w.resolve(c) // the whole chunk's, after its last state: the merge reads none before
	finished = true
}

// unwound records in c why the worker's goroutine unwinds before its work is done: p, a panic,
// is a bug of ours, said where the search's goroutine will see it; p nil means the model's code
// called runtime.Goexit, which ends this goroutine (unwound then reports true, and the caller
// starts another in its place; the search's goroutine calls Goexit too if the sequential search
// would have).
func (w *bfsWorker) unwound(c *chunk, p any) bool {
	if p != nil {
		c.addOdd(record{kind: recErr, state: w.state}, oddity{err: fmt.Errorf("internal error in a search worker: %v", p)})
		return false
	}
	r := record{kind: recGoexit, state: w.state, inRun: w.inRun, judging: w.judging, event: int32(w.run.Event), attempt: int32(w.run.Attempt),
		vOff: uint32(len(c.vals)), vN: uint32(len(w.running))}
	for _, v := range w.running {
		c.vals = append(c.vals, int32(v))
	}
	c.recs = append(c.recs, r)
	w.inRun, w.judging = false, false
	return true
}

// goexit ends the search's goroutine as the model's code ended a worker's, once no worker runs:
// with the run published, and, when it was a handler's, by running that handler again here with
// the same Choose values, so the goroutine ends inside the model's code as it would have on one
// goroutine (the worker process names the line that called runtime.Goexit from this stack).
func (p *parallel) goexit() {
	s := p.s
	s.begin(p.exit)
	if p.exitState != nil && s.mc.Load(p.exitState) == nil {
		s.mc.Run(s.mc.Def.Events[p.exit.Event], p.exitValues, false, nil)
	}
	runtime.Goexit()
}

// expand is the search's expand and successor, recording instead of deciding. It returns false
// when the chunk cannot go on.
func (w *bfsWorker) expand(c *chunk, idx int32, st State) bool {
	mc := w.mc
	if err := mc.Load(st); err != nil {
		c.addOdd(record{kind: recErr, state: w.state}, oddity{err: err})
		return false
	}
	enabled, fail := w.enabledLive()
	w.enabled = enabled
	mc.hasher.from(st, mc.pool)
	if fail != nil {
		c.addOdd(record{kind: recFail, state: w.state}, oddity{fail: fail})
		return true
	}
	for _, ei := range enabled {
		if !w.event(c, idx, st, ei) {
			return false
		}
	}
	if v := mc.DeadlockVerdict(len(enabled)); v != nil {
		c.addOdd(record{kind: recDeadlock, state: w.state}, oddity{viol: v})
	}
	return true
}

// event runs event ei's handler on st with every Choose combination, recording each run. It
// returns false when the chunk cannot go on.
func (w *bfsWorker) event(c *chunk, idx int32, st State, ei int) bool {
	mc := w.mc
	ev := mc.Def.Events[ei]
	prefix := w.prefix[:0]
	for attempt := 0; ; attempt++ {
		if err := mc.Load(st); err != nil {
			c.addOdd(record{kind: recErr, state: w.state}, oddity{err: err})
			return false
		}
		out := w.runOnce(idx, ei, attempt, ev, prefix)
		r := record{kind: recRun, state: w.state, event: int32(ei), attempt: int32(attempt),
			vOff: uint32(len(c.vals)), vN: uint32(len(out.Points))}
		for _, pt := range out.Points {
			c.vals = append(c.vals, int32(pt.Value))
		}
		w.judging = true
		ok := w.successor(c, &r, st, ev, out)
		w.judging = false
		c.recs = append(c.recs, r)
		if !ok {
			return false
		}
		var more bool
		prefix, more = nextPrefix(prefix, out.Points)
		if !more {
			break
		}
	}
	w.prefix = prefix
	return true
}

// successor captures and judges what one run left, into r. It returns false when the chunk
// cannot go on.
func (w *bfsWorker) successor(c *chunk, r *record, st State, ev *cmc.Event, out *Outcome) bool {
	mc := w.mc
	if out.Failure != nil {
		c.oddFor(r).fail = out.Failure
		return true
	}
	w.next = append(w.next[:0], st...)
	if err := mc.capture(w.next, ev.Touches); err != nil {
		c.oddFor(r).err = err
		return false
	}
	if mc.globals {
		c.globals = true
		return false
	}
	if len(mc.Def.StepChecks) > 0 {
		if v := w.stepVerdict(); v != nil {
			c.oddFor(r).viol = v
			return true
		}
	}
	r.hash = mc.hasher.child(w.next, ev.Touches, mc.pool)
	if !w.exact {
		if w.judged.has(r.hash) {
			r.seen = true
			return true
		}
		if !w.unordered {
			w.judged.add(r.hash)
		}
		if w.defers && w.visited.largeSeen() {
			// Looked up once the state's runs are done (deferred.go).
			w.visited.prefetchSeen(r.hash)
			w.later = append(w.later, len(c.recs))
		} else if w.visited.seen(r.hash) {
			w.judged.add(r.hash)
			r.seen = true
			return true
		}
	}
	r.sOff = uint32(len(c.succ))
	c.succ = append(c.succ, w.next...)
	var inv *Violation
	if len(mc.Def.Invariants) > 0 || len(mc.Def.Constraints) > 0 || len(mc.Def.Bounds) > 0 {
		if inv, r.cut = w.stateVerdict(); inv != nil {
			c.oddFor(r).inv = inv
		}
	}
	if inv == nil && w.scenarios {
		r.scOff = uint32(len(c.scen))
		for i := range mc.Def.Scenarios {
			c.scen = append(c.scen, mc.evalScenario(&mc.Def.Scenarios[i]))
		}
	}
	return true
}

func (w *bfsWorker) enabledLive() ([]int, *Failure) { return w.mc.enabledLive(w.enabled[:0]) }

func (w *bfsWorker) runOnce(idx int32, ei, attempt int, ev *cmc.Event, prefix []int) *Outcome {
	w.before = w.mc.CaptureStep()
	w.run, w.inRun, w.running = Position{int64(idx), ei, attempt}, true, prefix
	w.mc.slot.Begin(int64(idx), ei, attempt)
	out := w.mc.explore(ev, prefix)
	w.inRun = false
	return out
}

func (w *bfsWorker) stepVerdict() *Violation { return w.mc.StepVerdict(w.before) }

func (w *bfsWorker) stateVerdict() (*Violation, bool) {
	if v := w.mc.StateVerdict(); v != nil {
		return v, false
	}
	return nil, w.mc.cut()
}
