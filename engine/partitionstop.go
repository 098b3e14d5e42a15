package engine

import (
	"fmt"
	"slices"
)

// The figures of a partitioned search that stops at a violation are the sequential search's
// (partition.go): that search stops in the middle of a level, at the first violation in its order,
// having counted the runs of the states it expanded before, the runs of the violating state up to
// the violating one (or all of them, for a deadlock), and the new states it met up to there
// (the violating one too, when the violation is a new state's invariant). Every partition knows
// the violation chosen after the level's barrier (candidateLess orders them as the sequential
// search meets them); each counts its share of that prefix, and one more round sums the shares.
//
// A partition's share of the runs: its states of the level are expanded in key order, so the
// states before the violation's are a prefix of them. A mark every markEvery states holds the
// figures so far; from the last mark before the violation, the states up to it are run again
// (restore, enabling conditions, handlers), only to count their runs by event. Its share of the
// new states: its arrivals of the next level (all batches merged) whose place comes before the
// violation's, or is the violation's.

const markEvery = 1024

// A mark is a level's expansion figures before one of its states.
type mark struct {
	transitions, expanded int64
	runs                  []int64
}

func (ps *partSearch) mark() {
	ps.marks = append(ps.marks, mark{ps.rep.Transitions, ps.rep.Expanded, slices.Clone(ps.rep.Runs)})
}

// countToViolation replaces the figures of the level-th expansion, summed from reports, by the
// sequential search's up to violation v, and adds the next level's new states it had met.
func (ps *partSearch) countToViolation(level int, v *candidate, reports []*partReport, counts []int, cur *level) error {
	res := ps.res
	for q, r := range reports {
		res.Transitions -= r.Transitions
		res.Expanded -= r.Expanded
		ps.figures[q].Transitions -= r.Transitions
		for i, k := range r.Runs {
			ps.runs[i] -= k
		}
	}
	share, err := ps.stopShare(level, v, counts, cur)
	if err != nil {
		return err
	}
	ps.rep = *share
	shares, err := ps.barrier(level + 1)
	if err != nil {
		return err
	}
	for q, r := range shares {
		res.States += r.Admitted
		res.Cut += r.Cut
		res.Transitions += r.Transitions
		res.Expanded += r.Expanded
		ps.figures[q].States += r.Admitted
		ps.figures[q].Transitions += r.Transitions
		for i, k := range r.Runs {
			ps.runs[i] += k
		}
		if r.Admitted > 0 {
			res.Depth = level + 1
		}
	}
	return nil
}

// stopShare is this partition's share of the figures of the level-th expansion up to violation v,
// and of the next level's new states up to it, as a report; counts are the level's batch counts.
func (ps *partSearch) stopShare(level int, v *candidate, counts []int, cur *level) (*partReport, error) {
	rep := &partReport{Batches: make([]int, ps.part.Count), Runs: make([]int64, len(ps.mc.Def.Events))}
	if len(ps.marks) > 0 { // the level was expanded
		m, _ := slices.BinarySearch(ps.keys, v.Key) // this partition's states before the violation's
		from := m / markEvery * markEvery
		mk := ps.marks[m/markEvery]
		rep.Transitions, rep.Expanded = mk.transitions, mk.expanded
		copy(rep.Runs, mk.runs)
		for i := from; i <= m && i < len(ps.keys); i++ {
			upTo := int64(runDeadlock)
			if i == m {
				if ps.keys[m] != v.Key {
					break // the violation's state is another partition's
				}
				upTo = v.Run
			}
			_, _, st, err := cur.at(i)
			if err != nil {
				return nil, err
			}
			if err := ps.countRuns(st, upTo, rep); err != nil {
				return nil, err
			}
		}
	}
	if err := ps.part.Exchange.Receive(ps.ctx, level, counts, ps.merge); err != nil {
		return nil, fmt.Errorf("receive level %d: %w", level, err)
	}
	a := &ps.local
	for i := range a.len() {
		if at := a.at[i]; at.key < v.Key || at.key == v.Key && int64(at.run) <= v.Run {
			rep.Admitted++
			if a.verdict[i] == verdictCut {
				rep.Cut++
			}
		}
	}
	a.reset()
	return rep, nil
}

// countRuns counts into rep the handler runs of st whose ordinal is at most upTo (runDeadlock: all,
// and the state counts as expanded).
func (ps *partSearch) countRuns(st State, upTo int64, rep *partReport) error {
	mc := ps.mc
	enabled, _, err := mc.enabledIn(ps.enabled[:0], st)
	if err != nil {
		return err
	}
	ps.enabled = enabled
	run := int64(0)
	for _, ei := range enabled {
		prefix := ps.prefix[:0]
		for ; run <= upTo; run++ {
			if err := mc.Load(st); err != nil {
				return err
			}
			out := mc.Run(mc.Def.Events[ei], prefix, false, nil)
			rep.Transitions++
			rep.Runs[ei]++
			var more bool
			if prefix, more = nextPrefix(prefix, out.Points); !more {
				run++
				break
			}
		}
		ps.prefix = prefix
	}
	if upTo == runDeadlock {
		rep.Expanded++
	}
	return nil
}
