package engine

import (
	"runtime"
	"slices"
	"sync/atomic"
)

// Depth-first search on two cores. A depth-first search expands its states one after another:
// which state comes next depends on what expanding the one before found new. So the work it shares
// is inside one state. The search hands the state to a helper, which has its own instance of the
// model (Options.Build) and machine on the search's pool, as parallel.go's workers have. Both find
// the state's enabled events; the search runs the first part of them as it always does, while the
// helper runs the rest, each handler with every Choose combination, and records, as a parallel.go
// worker does, what the sequential search would do with each run. Then the search takes the
// helper's records in event order and does with each exactly that (parallel.take: visited set,
// trail, counts, reports, the stack). The result is the sequential search's: the same states in
// the same order, the same depth, first violation and trace.
//
// The search's part is half, rounded up: with both putting their visited lookups off
// (deferred.go) their runs cost the same, and TwoPhase RM=9 took 19.3-19.8 s split so against
// 19.7-20.7 s with a tenth more for the search and 19.9 s with a tenth less. The state expanded
// next is the first new successor, so once the search has found one, in its own part or among
// the helper's records, it posts that state at once (ahead), and the helper starts
// on it as soon as it is done with this one: jobs alternate between two buffers. The
// helper's part is found anew for each state: taking events one at a time from a shared counter
// cost more in moving the counter between cores than it balanced. One helper, not one per core: a
// state has a handful of enabled events, and with more helpers than that they would only wait.
//
// When the search wants the records of a job the helper has not started (it sleeps, or another
// process has its core), it takes the job back and runs the helper's part itself; and either
// goroutine, waiting for the other, spins only so long before it sleeps. With one of two cores
// kept busy by another process, spinning without that bound made the search 3.6x slower with the
// helper than without (TwoPhase RM=8: 22.2 s against 6.2 s); now 8.4 s against 7.4 s.
//
// The search takes the helper's records in the order the helper made them, state after state, so
// the helper keeps track of the successors it handed over as a parallel.go worker does (judged).
//
// Events are shared once the self-check has sampled its transitions and while no capture has met
// a package-level variable (a capture that meets one, in either part, stops the helper, and the
// search runs the rest of the state itself); so does a helper that finds other events enabled than
// the search did, or an enabling condition failing. From the first state shared until the helper stops, Options.Concurrent
// is on and Options.Begin is not called, as in parallel.go and for the same reasons: the search's
// own runs are recorded in its machine's slot, where a watchdog finds the one that hangs, and a
// crash is traced by searching again on one goroutine. A runtime.Goexit in the model's code ends
// the search's goroutine with the run the sequential search would have ended in published.

// A forked search's helper and the state it helps with.
//
// What the search writes, what the helper writes and what both change are on cache lines of their
// own: a line written by one core and read by the other, which spins on it, moves between them at
// every write, and fields of the other side on it with it.
type forked struct {
	p    *parallel
	h    *bfsWorker // the helper's machine
	off  bool       // sharing is out for this search
	on   bool       // the helper runs: Options.Concurrent is on
	quit atomic.Bool
	// Jobs alternate between two buffers, so the search can post the next state while the
	// helper still works on this one's part (ahead).
	jobs [2]job
	_    cacheLinePad
	// The search's.
	posted atomic.Uint64 // the last job posted: a count of states shared
	job    uint64        // the search's copy of posted
	cur    uint64        // the job of the state being expanded
	_      cacheLinePad
	// The helper's.
	done atomic.Uint64 // the last job the helper finished
	last uint64        // the last job it saw
	_    cacheLinePad
	// taken is the last job the helper took, or the search took back to do itself (the helper had
	// not started it: it sleeps, or another process has its core).
	taken   atomic.Uint64
	_       cacheLinePad
	idle    sleeper // the helper, when it waits for a job
	_       cacheLinePad
	waiting sleeper // the search, when it waits for the helper's records
	_       cacheLinePad
}

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
	if z.on.CompareAndSwap(true, false) {
		select {
		case z.ch <- struct{}{}:
		default: // a wake-up is pending already (the sleeper found it need not sleep)
		}
	}
}

// A job is a state shared: what it is about, written by the search before it posts the job, and
// what the helper found, written by the helper until it marks the job done.
type job struct {
	idx     int32 // the state's trail index; c.ids is the state
	enabled []int // the events enabled in the state
	failed  bool  // an enabling condition failed in the helper
	from    int   // where the helper's part of them starts
	c       chunk // its records
}

const (
	// sleepAfter is how many times a waiting goroutine looks before it sleeps: far more than
	// the other takes when both have a core (a few microseconds), and a bound on what spinning
	// wastes when they share one (another process keeps a core busy).
	sleepAfter = 1 << 13
	// spinsPerYield is how many times a goroutine waiting for another looks before it yields:
	// the wait is about as long as a handler run, and yielding costs more than that.
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

// use reports whether the next state is shared, starting the helper the first time.
func (f *forked) use() bool {
	if f == nil || f.off {
		return false
	}
	s := f.s()
	if s.mc.globals {
		f.off = true
		f.close()
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

// begin says the search expands the state st at trail index idx: the helper gets it now, unless
// it got it ahead.
func (f *forked) begin(idx int32, st State) {
	if f.job > f.cur {
		if f.jobs[f.job%2].idx == idx {
			f.cur = f.job
			return
		}
		// Posted ahead for a state the search does not expand next after all: its records
		// will not be merged, so the successors it handed over were not.
		if !f.takeBack(f.job) {
			f.wait(f.job)
			clear(f.h.judged[:])
		}
	}
	f.post(idx, st)
	f.cur = f.job
}

// ahead posts the state st at trail index idx, which the search will expand right after the
// current one, while the helper may still be at work on the current one's part.
func (f *forked) ahead(idx int32, st State) {
	if f.job > f.cur || !f.on {
		return
	}
	f.post(idx, st)
}

// post hands the helper the state st at trail index idx as the next job. Its buffer is the one of
// the job before the current one, which the search has merged.
func (f *forked) post(idx int32, st State) {
	j := &f.jobs[(f.job+1)%2]
	j.c.reset()
	j.idx, j.c.ids = idx, append(j.c.ids, st...)
	f.job++
	f.posted.Store(f.job)
	f.idle.wake()
}

// wait waits until the helper has done job n.
func (f *forked) wait(n uint64) {
	f.waiting.await(func() bool { return f.done.Load() >= n })
}

// takeBack takes job n from the helper, unless it has started it: the search then does the
// helper's part itself, rather than wait for a helper that sleeps or has no core.
func (f *forked) takeBack(n uint64) bool { return f.taken.CompareAndSwap(n-1, n) }

// part returns where the helper's part of n enabled events starts: after half, rounded up.
func part(n int) int { return (n + 1) / 2 }

// join waits for the helper to finish the job and does with its records, in order, what the
// sequential search would have; new successors go to emit. It returns the index of the first
// enabled event the search must run itself after all (len(enabled) when none): the helper found
// other events enabled than the search did, or an enabling condition failed there (the model's
// enabling conditions are not a function of its state), or a capture met a package-level variable.
// Then the helper stops (discard).
func (f *forked) join(enabled []int, emit func(int32, State)) (int, error) {
	if f.takeBack(f.cur) {
		return part(len(enabled)), nil
	}
	f.wait(f.cur)
	s, j := f.s(), &f.jobs[f.cur%2]
	if j.failed || !slices.Equal(j.enabled, enabled) {
		f.discard()
		return part(len(enabled)), nil
	}
	if j.c.globals || s.mc.globals {
		// Both instances share the variable: what the helper found while the search ran may
		// not be what one instance finds.
		f.discard()
		return j.from, nil
	}
	f.p.exit = Position{State: -1}
	for ri := range j.c.recs {
		stopped, err := f.p.take(&j.c, &j.c.recs[ri], j.idx, s.depth, emit)
		if f.p.exit.State >= 0 {
			// The model's code called runtime.Goexit in the helper where the sequential search
			// would have run it: end this goroutine as it would have.
			f.close()
			f.p.goexit()
		}
		if stopped || err != nil {
			return len(enabled), err
		}
	}
	return len(enabled), nil
}

// discard stops the helper for the rest of the search, once it is done with its jobs, whose
// records are not merged: its later records could count on successors it handed over in these
// (judged), which would then be missing from the visited set.
func (f *forked) discard() {
	f.off = true
	f.close()
}

// unwinding is deferred by the search around its own part of a shared state, with returned set
// when that part returned: if it did not, the model's code called runtime.Goexit there (or our
// code panicked), and the search's goroutine ends with the run it was in, which is the one the
// sequential search would have ended in, published by close once the helper stopped.
func (f *forked) unwinding(returned *bool) {
	if !*returned {
		f.close()
	}
}

// help is the helper's goroutine: it does its part of every job until the search is over.
func (f *forked) help() {
	defer f.p.wg.Done()
	working := false
	defer func() {
		if !working {
			return
		}
		// A panic of ours, or the model's code called runtime.Goexit: the records say which,
		// and another goroutine takes this one's place.
		f.h.unwound(&f.jobs[f.last%2].c, recover())
		f.finished(f.last)
		f.p.wg.Add(1)
		go f.help()
	}()
	for f.next() {
		working = true
		f.part(&f.jobs[f.last%2])
		working = false
		f.finished(f.last)
	}
}

// part finds the events enabled in job j's state, as the search does, and expands the helper's
// part of them, recording what it found.
func (f *forked) part(j *job) {
	w := f.h
	w.state = 0
	j.enabled, j.failed = j.enabled[:0], false
	if err := w.mc.Load(State(j.c.ids)); err != nil {
		j.c.recs = append(j.c.recs, record{kind: recErr, err: err})
		return
	}
	enabled, fail := w.mc.enabledLive(j.enabled)
	if j.enabled, j.failed = enabled, fail != nil; j.failed {
		return // the search finds it too, or runs the helper's part itself (join)
	}
	j.from = part(len(enabled))
	w.later = w.later[:0]
	w.mc.hasher.from(State(j.c.ids), w.mc.pool)
	for _, ei := range enabled[j.from:] {
		if !w.event(&j.c, j.idx, State(j.c.ids), ei) {
			return
		}
	}
	w.resolve(&j.c)
}

// next waits for a job and takes it; false when the search is over.
func (f *forked) next() bool {
	for {
		f.idle.await(func() bool { return f.posted.Load() > f.last || f.quit.Load() })
		if f.quit.Load() {
			return false // a job posted ahead is not merged after close
		}
		f.last++
		if f.taken.CompareAndSwap(f.last-1, f.last) {
			return true
		}
		// The search took it back.
	}
}

// finished marks the helper's job n done, waking the search if it sleeps.
func (f *forked) finished(n uint64) {
	f.done.Store(n)
	f.waiting.wake()
}
