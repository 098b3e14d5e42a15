package engine

import "math/rand/v2"

// swarmMembers is how many searches a swarm runs.
const swarmMembers = 8

// swarm runs swarmMembers randomised depth-first searches one after another, as SPIN's swarm
// verification runs many small diverse searches instead of one large one: member i orders each
// state's successors by its own generator (Options.Seed and i), is bounded by its own depth
// (from half of Options.MaxDepth to all of it, when there is one) and gets an equal share of
// Options.MaxStates. Each member prunes with a visited set of its own (sharing one would leave
// every member after the first nothing to explore from the initial state); what they share is
// the set of violations, so every distinct one is reported once, and the count of distinct
// states. Members run on one goroutine, so the result is a function of the seed.
func (s *search) swarm(start State) error {
	seed := s.opts.Seed
	if seed == 0 {
		seed = 1
	}
	s.res.Seed = seed
	all := newVisited(false) // every member's states, to count distinct ones
	defer all.free()
	all.add(s.mc.Hash(start), nil)
	budget := s.opts.MaxStates / swarmMembers
	own := s.visited
	defer func() { s.visited = own }()
	complete := false
	for i := range swarmMembers {
		if s.stop {
			break
		}
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		bound := s.opts.MaxDepth
		if bound > 0 {
			bound = bound/2 + (bound-bound/2)*i/(swarmMembers-1)
		}
		s.visited = newVisited(s.opts.Exact)
		s.visited.add(s.mc.Hash(start), start.key(nil))
		beyond, err := s.dive(start, dive{bound: bound, states: budget, order: rng.Perm,
			found: func(st State) { all.add(s.mc.Hash(st), nil) }})
		s.visited.free()
		if err != nil {
			return err
		}
		complete = complete || (!s.stop && !beyond)
	}
	s.res.States = int64(all.n)
	s.res.Complete = complete
	return nil
}
