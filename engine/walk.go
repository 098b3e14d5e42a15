package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// walk is a random walk: at each step a random enabled event with random Choose values.
func (s *search) walk(start State) error {
	seed := s.opts.Seed
	if seed == 0 {
		seed = 1
	}
	s.res.Seed = seed
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	steps := s.opts.Steps
	if steps <= 0 {
		steps = 10000
	}
	mc := s.mc
	st := start
	path := slices.Clone(s.prefix)
	for n := 0; n < steps && !s.stop; n++ {
		enabled, fail, err := mc.Enabled(st)
		if err != nil {
			return err
		}
		if fail != nil {
			s.report(path, NewViolation(fail.Kind, "", fail.Message, fail.Site))
			return nil
		}
		if len(enabled) == 0 {
			if v := mc.DeadlockVerdict(0); v != nil {
				s.report(path, v)
			}
			break
		}
		ei := enabled[rng.IntN(len(enabled))]
		ev := mc.Def.Events[ei]
		if err := mc.Load(st); err != nil {
			return err
		}
		before := s.mc.CaptureStep()
		if r := s.opts.Reproduce; r != nil && r.Position == (Position{int64(len(path)), ei, 0}) {
			s.report(append(path, pathStep{event: ei}), NewViolation(r.Kind, "", r.Message, ev.File))
			break
		}
		s.begin(Position{int64(len(path)), ei, 0})
		out := mc.Run(ev, nil, false, rng.IntN)
		s.ran(ei)
		s.expanded()
		step := pathStep{event: ei, values: values(out.Points)}
		path = append(path, step)
		if f := out.Failure; f != nil {
			s.report(path, NewViolation(f.Kind, "", f.Message, f.Site))
			break
		}
		next, err := mc.Capture(st, ev.Touches)
		if err != nil {
			return fmt.Errorf("after %d steps: %w", len(path), err)
		}
		if s.checked < s.limit {
			found, err := s.selfCheckAfter(Position{int64(len(path) - 1), ei, 0}, next, ev, func() []pathStep { return slices.Clone(path) })
			if err != nil {
				return fmt.Errorf("after %d steps: %w", len(path), err)
			}
			if found {
				break
			}
			if err := mc.Load(next); err != nil {
				return err
			}
		}
		s.res.Depth = len(path)
		s.key = next.key(s.key[:0])
		if s.visited.add(mc.Hash(next), s.key) {
			s.res.States++
		}
		if v := s.mc.StepVerdict(before); v != nil {
			s.report(path, v)
			break
		}
		if v := s.mc.StateVerdict(); v != nil {
			s.report(path, v)
			break
		}
		if s.mc.cut() {
			break
		}
		st = next
		s.tick(len(path), 1)
	}
	if s.opts.Keep {
		t, _, _, err := mc.record(s.init, path)
		if err != nil {
			return fmt.Errorf("record the walk: %w", err)
		}
		s.res.Walk = t
	}
	return nil
}
