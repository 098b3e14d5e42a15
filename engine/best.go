package engine

// best is best-first search: the state the guide (guide.go) scores highest is expanded first,
// ties in the order the states were found. With a protocol's score it goes straight for the
// states that matter to the property, as J-Sim's AODV-BeFS heuristics did (seed 004); the trace it
// finds is not the shortest (bfs and deepen give that), but it may be the only one found in time.
func (s *search) best(start State) error {
	g := newGuide(s.mc.Def, s.scenarios.goalScenario())
	s.res.Heuristic = g.heuristic
	q := newQueue(len(start), g.levels())
	score, fail := g.rank(s.mc, nil, start)
	if fail != nil {
		s.violation(0, nil, guideFailure(fail))
		return nil
	}
	q.push(0, 0, start, score)
	var st State
	bounded := false
	for q.len() > 0 && !s.stop {
		var idx int32
		var depth int
		idx, depth, st, s.score = q.pop(st, s.score)
		if s.opts.MaxDepth > 0 && depth >= s.opts.MaxDepth {
			bounded = true
			continue
		}
		s.depth = depth
		err := s.expand(idx, st, func(nidx int32, next State) {
			score, fail := g.rank(s.mc, st, next)
			if fail != nil {
				s.violation(nidx, nil, guideFailure(fail))
				return
			}
			q.push(nidx, depth+1, next, score)
		})
		if err != nil {
			return err
		}
		s.frontierBytes = max(s.frontierBytes, q.bytes())
		s.tick(depth, q.len())
	}
	s.res.Complete = !s.stop && !bounded
	return nil
}

// guideFailure is the violation of a score, abstract state or scenario function that failed.
func guideFailure(f *Failure) *Violation {
	return NewViolation("guide", "", f.Kind+": "+f.Message, f.Site)
}
