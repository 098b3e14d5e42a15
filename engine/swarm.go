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
	stack, succ := newFrontier(len(start)), newFrontier(len(start))
	defer func() { stack.free(); succ.free() }()
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
		first := s.res.States
		stack.reset()
		stack.push(0, 0, start)
		cut := false
		for stack.len() > 0 && !s.stop && (budget == 0 || s.res.States-first < budget) {
			idx, depth, st := stack.pop()
			if bound > 0 && depth >= bound {
				cut = true
				continue
			}
			succ.reset()
			s.depth = depth
			err := s.expand(idx, st, func(idx int32, st State) {
				all.add(s.mc.Hash(st), nil)
				succ.push(idx, depth+1, st)
			})
			if err != nil {
				return err
			}
			for _, j := range rng.Perm(succ.len()) {
				stack.push(succ.at(j))
			}
			s.frontierBytes = max(s.frontierBytes, stack.bytes())
			s.tick(depth, stack.len())
		}
		complete = complete || (!s.stop && !cut && stack.len() == 0)
		s.visited.free()
	}
	s.res.States = int64(all.n)
	s.res.Complete = complete
	return nil
}
