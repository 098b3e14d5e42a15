package engine

// deepen is iterative deepening: depth-first searches bounded at depth 1, 2, 3..., each from the
// initial state, until one finds a violation, the goal or no state beyond its bound. The first
// violation it finds is one of the shortest, as breadth-first search's is, while what it keeps
// besides the visited set is a depth-first stack, not a breadth-first level: for models where the
// level does not fit. Within a bound, a state found again at a smaller depth than before is
// expanded again (visited.shallower), or a state first met on a long path would hide what lies
// within the bound behind it. The price is time: each bound repeats the work of the ones before.
//
// States is the number of distinct states of the last bound (each bound's are a superset of the
// last's); Transitions counts every bound's.
func (s *search) deepen(start State) error {
	limit := s.opts.MaxDepth
	for bound := 1; ; bound++ {
		s.visited.depths = map[string]int32{string(start.key(nil)): 0}
		s.res.States = 1
		beyond, err := s.dive(start, dive{bound: bound, expand: func(depth int) { s.visited.at = int32(depth + 1) }})
		if err != nil {
			return err
		}
		s.res.States = int64(len(s.visited.depths))
		if s.stop || !beyond || (limit > 0 && bound >= limit) {
			s.res.Complete = !s.stop && !beyond
			return nil
		}
	}
}

// shallower reports whether the state with the given key is new at depth v.at: never found in
// this bound's search, or found only deeper. It records the depth.
func (v *visited) shallower(key []byte) bool {
	if d, ok := v.depths[string(key)]; ok && d <= v.at {
		return false
	}
	v.depths[string(key)] = v.at
	return true
}
