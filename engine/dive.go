package engine

// A dive is one bounded depth-first search from the initial state, the building block of
// iterative deepening (deepen.go) and swarm (swarm.go).
type dive struct {
	bound  int               // states at this depth are not expanded; 0: no bound
	states int64             // stop once this many states more are stored; 0: no bound
	order  func(n int) []int // the order in which a state's n successors are explored; nil: the events'
	expand func(depth int)   // called before a state at depth is expanded
	found  func(st State)    // called with each successor to explore
}

// dive runs d and reports whether it left a state at its bound unexpanded.
func (s *search) dive(start State, d dive) (beyond bool, err error) {
	stack, succ := newFrontier(len(start)), newFrontier(len(start))
	defer func() { stack.free(); succ.free() }()
	stack.push(0, 0, start)
	first := s.res.States
	for stack.len() > 0 && !s.stop && (d.states == 0 || s.res.States-first < d.states) {
		// st lies in memory the stack no longer holds: nothing is pushed until it is expanded.
		idx, depth, st := stack.pop()
		if d.bound > 0 && depth >= d.bound {
			beyond = true
			continue
		}
		succ.reset()
		s.depth = depth
		if d.expand != nil {
			d.expand(depth)
		}
		err := s.expand(idx, st, func(idx int32, st State) {
			if d.found != nil {
				d.found(st)
			}
			succ.push(idx, depth+1, st)
		})
		if err != nil {
			return beyond, err
		}
		if d.order == nil {
			for i := succ.len() - 1; i >= 0; i-- { // the first event's successor is explored first
				stack.push(succ.at(i))
			}
		} else {
			for _, i := range d.order(succ.len()) {
				stack.push(succ.at(i))
			}
		}
		s.frontierBytes = max(s.frontierBytes, stack.bytes())
		s.tick(depth, stack.len())
	}
	return beyond || stack.len() > 0, nil
}
