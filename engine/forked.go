package engine

import (
	"runtime"
	"slices"
	"sync/atomic"
)

// Depth-first search on two cores. A depth-first search takes its states from the top of a stack:
// which state comes next depends on what expanding the one before found new. But what expanding a
// state finds (its enabled events, every handler run with every Choose combination, each
// successor's capture, hash and verdicts) does not depend on when it is expanded; only which
// successors are new does. So a helper, with its own instance of the model (Options.Build) and
// machine on the search's pool, as parallel.go's workers have, expands states that wait on the
// stack, near its top, ahead of the search, and records, as a parallel.go worker does, what the
// sequential search would do with each run (a job). When the search pops a state with a job, it
// does with the job's records exactly that (parallel.take: the visited lookups, trail, counts,
// reports and the new successors pushed), which costs a fraction of expanding it; a state without
// one it expands itself, as it always does. The result is the sequential search's: the same states
// in the same order, the same depth, first violation and trace.
//
// Which states: while the search expands one, the helper expands the states just under it. Half
// the states TwoPhase's search expands have no new successor, and then the one just under is
// next; the others' successors go on top and that state waits, its job with it. The search posts
// a job for each of the top offerReach states that has none, while fewer than queueDepth wait
// for the helper, which takes the one highest on the stack first. A job the helper has not started
// when the search pops its state (the helper sleeps, or another process has its core) the search
// takes back and expands the state itself. The state after one with new successors is the first
// of them, which no one has expanded: the search expands it itself, so it does at least half of
// TwoPhase's states (TwoPhase RM=8: the helper did 43%, and the search waited for it at 7% of
// its pops). Chaining a job for the first successor the helper took for new, so the helper
// would run ahead down that path, was tried and not kept: the search then caught up with the
// helper and waited for it at 22% of its pops (docs/performance.md).

// A job's records may be merged long after later jobs' (its state waited under others), so the
// helper's cache of successors (judged) keeps only those it found in the visited set, never those
// it handed over, as a breadth-first worker, whose chunks are merged in the order it made them,
// does.
//
// States are shared once the self-check has sampled its transitions and while no capture has met
// a package-level variable (a capture that meets one, in either machine, stops the helper, its
// jobs are dropped and the search expands every state itself from then on). From the first job
// until the helper stops, Options.Concurrent is on and Options.Begin is not called, as in
// parallel.go and for the same reasons: the search's own runs are recorded in its machine's slot,
// where a watchdog finds the one that hangs, and a crash is traced by searching again on one
// goroutine. A runtime.Goexit in the model's code, in the helper, is recorded and replayed on the
// search's goroutine when the search merges that record (parallel.goexit).

// A forked search's helper and the jobs it is given.
//
// What the search writes, what the helper writes and what both change are on cache lines of their
// own: a line written by one core and read by the other moves between them at every write, and
// fields of the other side on it with it.
type forked struct {
	p    *parallel
	h    *bfsWorker // the helper's machine
	off  bool       // sharing is out for this search
	on   bool       // the helper runs: Options.Concurrent is on
	quit atomic.Bool
	_    cacheLinePad
	// The search's.
	posted []*job // jobs whose states are on the stack, by stack position, lowest first
	spare  []*job
	back   []*job // jobs merged or taken back, until the helper has passed them in the queue
	head   uint64 // the search's copy of tip
	// tailSeen is tail as the search last read it: the helper writes tail at every job, and a
	// read of the line then waits for the other core, so the search reads it only when
	// tailSeen says the queue may be full or a job may be used again.
	tailSeen uint64
	pace     pacer // whether the helper is paused (pacer.go)
	_        cacheLinePad
	// queue holds the jobs posted, at most queueDepth the helper has not passed: written by
	// the search at a post, read by the helper.
	queue [queueDepth]*job
	_     cacheLinePad
	tip   atomic.Uint64 // jobs posted: queue[n%queueDepth] is the nth
	_     cacheLinePad
	tail  atomic.Uint64 // jobs the helper took from the queue
	_     cacheLinePad
	idle  sleeper // the helper, when it waits for a job
	_     cacheLinePad
	// the search, when it waits for a job the helper works on
	waiting sleeper
	_       cacheLinePad
}

// A job is a state on the stack the helper expands: what it is, written by the search before it
// posts the job, and what the helper found, written by the helper until it marks the job done.
//
// The search reads pos at every post, so what the helper writes (the records, and state, which
// both write) is on other lines, whatever the job's alignment.
type job struct {
	_     cacheLinePad
	seq   uint64 // its place in the queue
	pos   int    // its state's position on the stack
	idx   int32  // the state's trail index; c.ids is the state
	_     cacheLinePad
	c     chunk // the records
	_     cacheLinePad
	state atomic.Uint32 // jobPosted, jobTaken, jobBack or jobDone
	_     cacheLinePad
}

const (
	jobPosted = iota
	jobTaken  // by the helper
	jobBack   // by the search, which expands the state itself
	jobDone
)

const (
	// offerReach is how far under the top of the stack the search looks for states to post.
	offerReach = 8
	// queueDepth is how many jobs may wait for the helper: one to start on when it is done with
	// the one under way, and one more.
	queueDepth = 2
	// maxPosted bounds the jobs whose states wait on the stack, and so their records' memory.
	maxPosted = 1024
)

// A sleeper is a goroutine that sleeps after spinning too long for another to change something:
// it says it sleeps, looks once more, and sleeps; the other changes the thing and then looks for a
// sleeper to wake, so one of the two sees the other.
type sleeper struct {
	on atomic.Bool
	ch chan struct{}
}

func newSleeper() sleeper { return sleeper{ch: make(chan struct{}, 1)} }

// await returns once ready says so: it spins, yields now and then, and sleeps after sleepAfter
// looks.
func (z *sleeper) await(ready func() bool) {
	for i := 1; !ready(); i++ {
		if i%spinsPerYield == 0 {
			runtime.Gosched()
			yieldThread()
		}
		if i < sleepAfter {
			continue
		}
		z.on.Store(true)
		if ready() {
			z.on.Store(false)
			return
		}
		<-z.ch
		i = 0
	}
}

// wake wakes the sleeper, if it sleeps.
func (z *sleeper) wake() {
	if z.on.Load() && z.on.CompareAndSwap(true, false) {
		select {
		case z.ch <- struct{}{}:
		default: // a wake-up is pending already (the sleeper found it need not sleep)
		}
	}
}

const (
	// sleepAfter is how many times a waiting goroutine looks before it sleeps (0.7-0.85 ms
	// here, its yields included): far more than the other takes when both have a core (a few
	// microseconds), and more than the helper's usual wait for the search's next post, since
	// waking a sleeper costs about 70 us on this machine. With 1 << 13 looks, a process with a
	// 20 ms ticker (the worker's watchdog) had the helper sleep 2,300-4,800 times on TwoPhase
	// RM=8 against 35-42 now (docs/performance.md).
	sleepAfter = 1 << 15
	// spinsPerYield is how many times a goroutine waiting for another looks before it yields
	// (the goroutine, then the thread's core, yieldThread): the wait is about as long as a
	// handler run, and yielding costs more than that.
	spinsPerYield = 256
)

// fork returns the depth-first search's helper, or nil when the options rule it out (as they rule
// out parallel.go's workers).
func (s *search) fork() *forked {
	p := s.parallel()
	if p == nil {
		return nil
	}
	return &forked{p: p, idle: newSleeper(), waiting: newSleeper()}
}

func (f *forked) s() *search { return f.p.s }

// use reports whether states are shared, starting the helper the first time.
func (f *forked) use() bool {
	if f == nil || f.off {
		return false
	}
	s := f.s()
	if s.mc.globals {
		f.discard()
		return false
	}
	if s.checked < s.limit {
		return false
	}
	if !f.on && !f.start() {
		f.off = true
		return false
	}
	return true
}

// start builds the helper's machine and starts it.
func (f *forked) start() bool {
	workers, ok := f.p.machines(1)
	if !ok {
		return false
	}
	f.h = workers[0]
	f.h.unordered = true
	f.on = true
	if c := f.s().opts.Concurrent; c != nil {
		c(true)
	}
	f.p.wg.Add(1)
	go f.help()
	return true
}

// close stops the helper, which is between jobs.
func (f *forked) close() {
	if f == nil || !f.on {
		return
	}
	f.quit.Store(true)
	f.idle.wake()
	f.p.wg.Wait()
	f.h.mc.Close()
	s := f.s()
	s.visited.settle()
	if c := s.opts.Concurrent; c != nil {
		c(false)
	}
	f.on = false
	// What the sequential search would have published last: model code the search runs before
	// its next run (an enabling condition that calls runtime.Goexit, say) is traced from there.
	if s.hasRun {
		s.begin(s.lastRun)
	}
}

// discard stops the helper for the rest of the search and drops its jobs: the search expands
// their states itself.
func (f *forked) discard() {
	f.off = true
	f.close()
	f.posted = nil
}

// offer posts jobs for the top offerReach states of the stack that have none, while the helper
// has room for them in its queue. States at maxDepth or deeper are not expanded, and not posted.
func (f *forked) offer(stack *frontier, maxDepth int) {
	if !f.use() || f.pace.paused() {
		return
	}
	k := len(f.posted)
	for pos := stack.len() - 1; pos >= max(0, stack.len()-offerReach); pos-- {
		if f.head-f.tailSeen >= queueDepth {
			f.tailSeen = f.tail.Load()
		}
		if f.head-f.tailSeen >= queueDepth || len(f.posted) >= maxPosted {
			return
		}
		for k > 0 && f.posted[k-1].pos > pos {
			k--
		}
		if k > 0 && f.posted[k-1].pos == pos {
			continue
		}
		idx, depth, st := stack.at(pos)
		if maxDepth > 0 && depth >= maxDepth {
			continue
		}
		j := f.job()
		j.pos, j.idx, j.c.ids = pos, idx, append(j.c.ids, st...)
		f.posted = slices.Insert(f.posted, k, j)
		f.post(j)
	}
}

// job returns an empty job.
func (f *forked) job() *job {
	k := 0
	for k < len(f.back) && f.tailSeen > f.back[k].seq {
		f.spare = append(f.spare, f.back[k])
		k++
	}
	// Moved down, not resliced: a slice whose start moves on loses its room, and every append
	// then copied it to a new array (610,000 allocations in TwoPhase RM=8, a third a state).
	f.back = f.back[:copy(f.back, f.back[k:])]
	if n := len(f.spare); n > 0 {
		j := f.spare[n-1]
		f.spare = f.spare[:n-1]
		j.c.reset()
		return j
	}
	return &job{}
}

// post puts job j in the helper's queue.
func (f *forked) post(j *job) {
	j.seq = f.head
	j.state.Store(jobPosted)
	f.queue[f.head%queueDepth] = j
	f.head++
	f.tip.Store(f.head)
	f.idle.wake()
}

// claim returns the job of the state at stack position pos, just popped, or nil.
func (f *forked) claim(pos int) *job {
	if f == nil {
		return nil
	}
	if n := len(f.posted); n > 0 && f.posted[n-1].pos == pos {
		j := f.posted[n-1]
		f.posted = f.posted[:n-1]
		return j
	}
	return nil
}

// take does with job j's records, in order, what the sequential search would have done expanding
// its state; new successors go to emit. It reports false when the search must expand the state
// itself: j is nil, the helper had not started it, or sharing stopped (a capture met a
// package-level variable).
func (f *forked) take(j *job, emit func(int32, State)) (bool, error) {
	if j == nil {
		return false, nil
	}
	if j.state.CompareAndSwap(jobPosted, jobBack) {
		f.back = append(f.back, j)
		return false, nil
	}
	f.waiting.await(func() bool { return j.state.Load() == jobDone })
	defer func() { f.back = append(f.back, j) }()
	s := f.s()
	if j.c.globals || s.mc.globals {
		// Both instances share the variable: what the helper found while the search ran may
		// not be what one instance finds.
		f.discard()
		return false, nil
	}
	if s.defers && s.visited.large() {
		// The new successors' slots, asked for before the first is looked up: without this,
		// TwoPhase RM=9 was slower in five of seven alternated pairs (docs/performance.md).
		for ri := range j.c.recs {
			if r := &j.c.recs[ri]; r.kind == recRun && !r.seen {
				prefetch(s.visited.slot(r.hash))
			}
		}
	}
	f.p.exit = Position{State: -1}
	for ri := range j.c.recs {
		r := &j.c.recs[ri]
		if r.kind == recEnd {
			s.expanded()
			break
		}
		stopped, err := f.p.take(&j.c, r, j.idx, s.depth, emit)
		if f.p.exit.State >= 0 {
			// The model's code called runtime.Goexit in the helper where the sequential search
			// would have run it: end this goroutine as it would have.
			f.close()
			f.p.goexit()
		}
		if stopped || err != nil {
			return true, err
		}
	}
	return true, nil
}

// help is the helper's goroutine: it expands the states of the jobs it is given until the search
// is over.
func (f *forked) help() {
	defer f.p.wg.Done()
	var cur *job
	defer func() {
		if cur == nil {
			return
		}
		// A panic of ours, or the model's code called runtime.Goexit: the records say which,
		// and another goroutine takes this one's place.
		f.h.unwound(&cur.c, recover())
		f.finished(cur)
		f.p.wg.Add(1)
		go f.help()
	}()
	for {
		j := f.next()
		if j == nil {
			return
		}
		cur = j
		f.expand(j)
		cur = nil
		f.finished(j)
	}
}

// expand expands job j's state as a parallel.go worker expands one of a chunk's.
func (f *forked) expand(j *job) {
	w := f.h
	w.state, w.later = 0, w.later[:0]
	if w.expand(&j.c, j.idx, State(j.c.ids)) {
		j.c.recs = append(j.c.recs, record{kind: recEnd})
	}
	w.resolve(&j.c)
}

// next waits for a job and takes it; nil when the search is over. Of the jobs waiting, it takes
// the one whose state is highest on the stack: the search pops that one first.
func (f *forked) next() *job {
	for {
		n := f.tail.Load()
		f.idle.await(func() bool { return f.tip.Load() > n || f.quit.Load() })
		if f.quit.Load() {
			return nil
		}
		tip := f.tip.Load()
		var best *job
		for i := n; i < tip; i++ {
			if j := f.queue[i%queueDepth]; j.state.Load() == jobPosted && (best == nil || j.pos > best.pos) {
				best = j
			}
		}
		if best != nil && !best.state.CompareAndSwap(jobPosted, jobTaken) {
			best = nil // the search took it back
		}
		// The helper reads no job before tail again: the search may use those again.
		for n < tip && f.queue[n%queueDepth].state.Load() != jobPosted {
			n++
		}
		f.tail.Store(n)
		if best != nil {
			return best
		}
	}
}

// finished marks job j done, waking the search if it waits for it.
func (f *forked) finished(j *job) {
	j.state.Store(jobDone)
	f.waiting.wake()
}
