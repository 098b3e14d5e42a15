package store

import (
	"time"

	"github.com/cmc-go/cmc/engine"
)

// AddResult stores a finished check: the run, then its traces (the violations, then a kept
// random walk), then the run's end, counts and outcome. It returns the traces' ids in that order.
// The run is marked finished only once its traces are committed, so a process killed while
// storing leaves a run with no end and no outcome, never an "ok" or "violation" run without its
// traces. The check command and the DAP session both store their runs this way.
func (s *Store) AddResult(run Run, res *engine.Result, found time.Time) (runID int64, traceIDs []int64, err error) {
	end := run.End
	run.End, run.Outcome = time.Time{}, ""
	runID, err = s.AddRun(run)
	if err != nil {
		return 0, nil, err
	}
	if err := s.AddCoverage(runID, res); err != nil {
		return runID, nil, err
	}
	for _, t := range res.Traces() {
		id, err := s.AddTrace(runID, t, found)
		if err != nil {
			return runID, traceIDs, err
		}
		traceIDs = append(traceIDs, id)
	}
	run.ID, run.End = runID, end
	run.SetResult(res)
	run.Outcome = "ok"
	switch {
	case res.Cancelled:
		run.Outcome = "cancelled"
	case len(res.Violations) > 0:
		run.Outcome = "violation"
	}
	if err := s.EndRun(run); err != nil {
		return runID, traceIDs, err
	}
	return runID, traceIDs, nil
}
