package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/cmc-go/cmc"
)

// DefaultMembers is how many searches a swarm runs when Options.Members does not say.
const DefaultMembers = 8

// members is how many searches the swarm runs.
func (o *Options) members() int {
	if o.Members > 0 {
		return o.Members
	}
	return DefaultMembers
}

// swarm runs Options.Members randomised depth-first searches, as SPIN's swarm verification runs
// many small diverse searches instead of one large one: member i orders each state's successors by
// its own generator (Options.Seed and i), is bounded by its own depth (from half of
// Options.MaxDepth to all of it, when there is one) and gets an equal share of Options.MaxStates.
// Each member prunes with a visited set of its own (sharing one would leave every member after the
// first nothing to explore from the initial state) and follows the scenarios itself, so a member
// is a function of the seed and its index alone, and members can run at once (Options.Workers
// goroutines, each with an instance of the model of its own, as parallel.go's workers) or in other
// processes (CheckSwarm).
//
// Their results are merged in member order, so the swarm's result is the same on any number of
// goroutines or processes: each distinct violation once, from the first member that found it; the
// distinct states of all members; each scenario from the first member that reached it, else from
// the first of the best progress. A member that stops the search (a violation without All, the
// goal, an error) is the last one that counts: the members after it are cancelled, those before it
// finish.
func (s *search) swarm(start State) error {
	if s.opts.Seed == 0 {
		s.opts.Seed = 1
	}
	s.res.Seed = s.opts.Seed
	members := make([]*member, s.opts.members())
	progress := s.swarmProgress(len(members))
	ok, err := s.swarmParallel(members, start, progress)
	if err != nil {
		return err
	}
	for i := 0; !ok && i < len(members) && !decided(members); i++ {
		if !s.runs(i) {
			continue
		}
		ctx, cancel := s.memberContext(s.ctx, i)
		if ctx == nil {
			break // a member before i, in another process, stopped the swarm
		}
		members[i] = s.member(i, s.mc, ctx, start, false, progress)
		cancel()
		if err := s.finished(i, members[i], progress); err != nil {
			return err
		}
	}
	if err := s.gather(members); err != nil {
		return err
	}
	return s.mergeSwarm(members, start)
}

// A member is one search of a swarm, and what it found.
type member struct {
	res           *Result
	stop          bool     // it stopped: a violation without All, the goal, cancelled
	frontierBytes int64    // the most its stack took at once
	hashes        []uint64 // of the states it found to explore, for the count of distinct states
	beyond        bool     // it left a state at its depth bound unexpanded
	err           error
}

// decides reports whether the member stopped the swarm: the members after it do not count.
func (m *member) decides() bool { return m.err != nil || m.stop }

// decided reports whether a member run so far stopped the swarm.
func decided(members []*member) bool {
	return slices.ContainsFunc(members, func(m *member) bool { return m != nil && m.decides() })
}

// member runs member i of the swarm on mc. A member with a goroutine of its own (own) keeps a
// trail of its own and publishes its handler runs in mc's slot; one on the search's goroutine
// continues the search's trail and publishes them to Options.Begin, so that a Position names one
// handler run of the whole swarm, as Options.Reproduce needs. The self-check samples the first
// transitions of the first member only, so that it can run while the others do.
func (s *search) member(i int, mc *Machine, ctx context.Context, start State, own bool, progress *swarmProgress) *member {
	n := s.opts.members()
	rng := rand.New(rand.NewPCG(s.opts.Seed, uint64(i)))
	bound := s.opts.MaxDepth
	if bound > 0 && n > 1 {
		bound = bound/2 + (bound-bound/2)*i/(n-1)
	}
	states := s.opts.MaxStates
	if states > 0 {
		states = max(1, states/int64(n)) // a share of 0 would be no bound
	}
	opts := s.opts
	opts.MaxStates = 0 // a member's share is its dive's bound
	if opts.Progress != nil || opts.share != nil {
		opts.Progress = func(p Progress) { progress.member(i, p) }
	}
	if own {
		opts.Begin = func(state int64, event, attempt int) { mc.slot.Begin(state, event, attempt) }
	}
	ms := &search{ctx: ctx, mc: mc, opts: opts, init: s.init, prefix: s.prefix, sigs: map[string]bool{},
		res: &Result{Exact: s.opts.Exact, States: 1}, visited: newVisited(s.opts.Exact), scenarios: s.scenarios.on(mc.Def)}
	if i == 0 {
		ms.checked, ms.limit = s.checked, s.limit
	}
	if own {
		ms.trail.add(trailEntry{parent: -1})
	} else {
		ms.trail, ms.values = s.trail, s.values
	}
	ms.visited.add(mc.Hash(start), start.key(nil))
	m := &member{res: ms.res}
	m.beyond, m.err = ms.dive(start, dive{bound: bound, states: states, order: rng.Perm,
		found: func(st State) { m.hashes = append(m.hashes, mc.Hash(st)) }})
	if m.err == nil {
		ms.scenarioResults()
	}
	ms.visited.free()
	if own {
		m.err = errors.Join(m.err, ms.trail.err, ms.values.err)
		ms.trail.free()
		ms.values.free()
	} else {
		s.trail, s.values = ms.trail, ms.values
	}
	if i == 0 {
		s.checked = ms.checked
	}
	m.stop, m.frontierBytes = ms.stop, ms.frontierBytes
	return m
}

// swarmParallel runs the members at once, on Options.Workers goroutines, each with a machine of
// its own: the search's, and more made with Options.Build. It reports false when it cannot (as
// parallel.go's search: no Build, one worker, a Reproduce run, a model whose states reach
// package-level variables, an instance unlike the first) or when what the members did cannot
// stand (one met a package-level variable, or the model's code ended a goroutine with
// runtime.Goexit): then the members are for the caller to run on its own goroutine, which gives
// the result they would have given.
func (s *search) swarmParallel(members []*member, start State, progress *swarmProgress) (bool, error) {
	n := s.opts.Workers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	mine := 0 // the members this process runs (CheckSwarm): all, in one process
	for i := range members {
		if s.runs(i) {
			mine++
		}
	}
	n = min(n, mine)
	if n < 2 || s.opts.Build == nil || s.opts.Reproduce != nil || s.mc.globals {
		return false, nil
	}
	machines := []*Machine{s.mc}
	defer func() {
		for _, mc := range machines[1:] {
			mc.Close()
		}
	}()
	build := &parallel{s: s}
	for range n - 1 {
		m, err := build.build()
		if err != nil {
			return false, nil
		}
		mc, init, err := newMachineOn(m, true, s.mc.pool)
		if err != nil {
			return false, nil
		}
		machines = append(machines, mc)
		if !slices.Equal(init, s.init) || mc.globals {
			return false, nil // a builder that is not a function of its parameters, say
		}
	}
	if c := s.opts.Concurrent; c != nil {
		c(true)
		defer c(false)
	}
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		next    = 0
		first   = len(members) // the first member that decided
		cancels = make([]context.CancelFunc, len(members))
		ended   bool
		crash   error
		shared  error // telling the other processes (CheckSwarm)
	)
	// claim gives the next member to run and its context, or -1 when there is none.
	claim := func() (int, context.Context) {
		mu.Lock()
		defer mu.Unlock()
		for next < first && !s.runs(next) {
			next++
		}
		i := next
		if i >= first || shared != nil {
			return -1, nil
		}
		next++
		ctx, cancel := s.memberContext(s.ctx, i)
		if ctx == nil { // a member before i, in another process, stopped the swarm
			first = i
			return -1, nil
		}
		cancels[i] = cancel
		return i, ctx
	}
	done := func(i int, m *member) {
		mu.Lock()
		defer mu.Unlock()
		cancels[i]()
		members[i] = m
		if err := s.finished(i, m, progress); err != nil && shared == nil {
			shared = err
		}
		if m.decides() && i < first {
			first = i
			for _, c := range cancels[i+1:] {
				if c != nil {
					c()
				}
			}
		}
	}
	i0, ctx0 := claim() // the first member runs on the search's machine, which the self-check needs
	for k, mc := range machines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			finished := false
			defer func() {
				if finished {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if r := recover(); r != nil {
					crash = fmt.Errorf("internal error in a swarm member: %v", r) // a bug of ours
				}
				ended = true // or the model's code called runtime.Goexit
			}()
			i, ctx := i0, ctx0
			if k > 0 {
				i, ctx = claim()
			}
			for ; i >= 0; i, ctx = claim() {
				done(i, s.member(i, mc, ctx, start, true, progress))
			}
			finished = true
		}()
	}
	wg.Wait()
	for _, c := range cancels {
		if c != nil {
			c() // the members a Goexit ended did not
		}
	}
	if crash != nil {
		return false, crash
	}
	if shared != nil {
		return false, shared
	}
	if ended || slices.ContainsFunc(machines, func(mc *Machine) bool { return mc.globals }) {
		clear(members)
		return false, nil
	}
	return true, nil
}

// mergeSwarm makes the search's result of its members' results, in member order, up to the first
// member that decided. A member not run here (nil) is left out: only a process of a swarm over
// processes that does not merge (CheckSwarm) has any.
func (s *search) mergeSwarm(members []*member, start State) error {
	all := newVisited(false) // every member's states, to count distinct ones
	defer all.free()
	all.add(s.mc.Hash(start), nil)
	var reached []ScenarioResult
	for _, m := range members {
		if m == nil {
			continue
		}
		if m.err != nil {
			return m.err
		}
		r := m.res
		for _, h := range m.hashes {
			all.add(h, nil)
		}
		for _, t := range r.Violations {
			if !s.sigs[t.Violation.Signature] {
				s.sigs[t.Violation.Signature] = true
				s.res.Violations = append(s.res.Violations, t)
			}
		}
		s.res.Transitions += r.Transitions
		s.res.Expanded += r.Expanded
		s.res.Cut += r.Cut
		s.res.Depth = max(s.res.Depth, r.Depth)
		s.res.Cancelled = s.res.Cancelled || r.Cancelled
		s.res.Complete = s.res.Complete || (!m.stop && !m.beyond)
		s.frontierBytes = max(s.frontierBytes, m.frontierBytes)
		if r.runs != nil {
			if s.res.runs == nil {
				s.res.runs = make([]int64, len(r.runs))
			}
			for i, k := range r.runs {
				s.res.runs[i] += k
			}
		}
		reached = mergeScenarios(reached, r.Scenarios)
		if m.decides() {
			break
		}
	}
	s.res.States = int64(all.n)
	if len(s.scenarios.list) > 0 {
		s.res.Scenarios = reached
		s.scenarios = &scenarios{goal: -1} // reported: Check's scenarioResults has none left
	}
	return nil
}

// mergeScenarios adds a later member's scenarios to the earlier ones': a scenario reached by an
// earlier member stays, else one reached now replaces it, else a better progress does.
func mergeScenarios(merged, later []ScenarioResult) []ScenarioResult {
	if merged == nil {
		return slices.Clone(later)
	}
	for i, r := range later {
		cur := &merged[i]
		switch {
		case cur.Reached:
		case r.Reached:
			*cur = r
		case r.Progress != nil && (cur.Progress == nil || *r.Progress > *cur.Progress):
			*cur = r
		}
	}
	return merged
}

// on is a copy of sc to follow the same scenarios from the same state on, in another instance of
// the model (def): its scenarios' functions read that instance's values.
func (sc *scenarios) on(def *cmc.Definition) *scenarios {
	c := *sc
	if len(c.list) > 0 {
		c.list = def.Scenarios
	}
	c.reached, c.states = slices.Clone(sc.reached), slices.Clone(sc.states)
	c.best, c.bestAt = slices.Clone(sc.best), slices.Clone(sc.bestAt)
	return &c
}

// A swarmProgress is what the members report their progress to: the search's Progress, with the
// states and transitions of every member so far and how many have finished; in a swarm over
// processes, the share (which adds the other processes' members).
type swarmProgress struct {
	mu                  sync.Mutex
	states, transitions []int64
	done                int
	report              func(Progress) // nil: none
	share               SwarmShare
}

func (s *search) swarmProgress(n int) *swarmProgress {
	return &swarmProgress{states: make([]int64, n), transitions: make([]int64, n), report: s.opts.Progress, share: s.opts.share}
}

// member is member i's progress.
func (sp *swarmProgress) member(i int, p Progress) {
	if sp.share != nil {
		sp.share.Progress(i, p)
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.states[i], sp.transitions[i] = p.States, p.Transitions
	sp.send(p)
}

// finished counts a member that ended.
func (sp *swarmProgress) finished(i int, p Progress) {
	if sp.share != nil || sp.report == nil {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.states[i], sp.transitions[i] = p.States, p.Transitions
	sp.done++
	sp.send(p)
}

func (sp *swarmProgress) send(p Progress) {
	if sp.report == nil {
		return
	}
	p.States, p.Transitions = 0, 0
	for j := range sp.states {
		p.States += sp.states[j]
		p.Transitions += sp.transitions[j]
	}
	p.Members, p.MembersDone = len(sp.states), sp.done
	sp.report(p)
}
