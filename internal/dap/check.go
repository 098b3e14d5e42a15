package dap

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/natsrun"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/tracefmt"
	"github.com/google/go-dap"
)

// A check runs in a worker process (service.Program.Check), reports progress while it runs, stores what
// it found, and either stops on the first violation's trace or ends the session with a summary.

// A checkRun is a check in progress.
type checkRun struct {
	progressID string
	progress   bool // the client shows progress events
	start      time.Time
	check      *service.Check
	build      *service.Program
	meet       *natsrun.Run // a partitioned check's: where its partitions meet
	noDebug    bool
	onEntry    bool
}

// checkSeq numbers checks, for progress ids.
var checkSeq atomic.Int64

func (s *Session) startCheck(c *launchConfig, p *prepared) {
	run := &checkRun{
		progressID: fmt.Sprintf("cmc-check-%d", checkSeq.Add(1)),
		progress:   s.client.SupportsProgressReporting,
		start:      s.cfg.now(),
		check:      p.check,
		build:      p.build,
		meet:       p.meet,
		noDebug:    c.NoDebug,
		onEntry:    c.StopOnEntry,
	}
	s.check = run
	s.log.Info("check", "model", run.check.Model, "package", run.build.Package.ImportPath, "search", run.check.Settings.Search)
	ctx := s.startOp(context.Background(), run.progressID, 0)
	s.progressStart(run)
	go func() {
		progress := func(pr engine.Progress) { s.progressUpdate(run, pr) }
		var res *engine.Result
		var err error
		if run.meet != nil {
			res, err = s.checkPartitioned(ctx, run, progress)
		} else {
			res, err = run.build.Check(ctx, run.check, progress, s.modelOutput)
		}
		cancelled := ctx.Err() != nil
		s.post(func() { s.checked(run, res, err, cancelled) })
	}()
}

// checked handles the end of a check.
func (s *Session) checked(run *checkRun, res *engine.Result, err error, cancelled bool) {
	if s.check != run {
		return // a restart replaced it
	}
	s.check = nil
	s.endOp()
	end := s.cfg.now()
	s.log.Info("check ended", "model", run.check.Model, "cancelled", cancelled, "err", err, "elapsed", end.Sub(run.start))
	switch {
	case cancelled:
		s.progressEnd(run, "cancelled")
		s.output("console", "check cancelled\n")
		s.terminated()
		return
	case err != nil:
		s.progressEnd(run, "failed")
		s.output("stderr", fmt.Sprintf("check %s: %v\n", run.check.Model, err))
		s.terminated()
		return
	}
	runID, ids, err := service.Save(s.db, run.build.Package, run.check, res, run.start, end)
	if err != nil {
		s.output("stderr", fmt.Sprintf("check %s: store the traces: %v\n", run.check.Model, err))
	}
	report := service.NewReport(s.db, run.check, res, runID, ids, end.Sub(run.start))
	summary := summarize(run, res, ids, end.Sub(run.start), s.db.Path(), report)
	s.progressFinal(run, res)
	head := strings.SplitN(summary, "\n", 3) // what was checked; how many states
	s.progressEnd(run, strings.Join(head[:min(2, len(head))], ": "))
	s.output("console", summary)
	// The editor shows the result where the user looks (a notification, the results view), with or
	// without a violation: the console is not enough.
	s.send(&resultEvent{Event: event("cmc/result"), Body: report})
	if goal, id := goalTrace(run.check.Settings.Goal, res, ids); goal != nil && len(res.Violations) == 0 && !run.noDebug {
		// The check was asked for a trace to the goal: step through it.
		s.show(newTrace(id, goal))
		s.whenConfigured(func() { s.firstStop(run.onEntry) })
		return
	}
	if len(res.Violations) == 0 || len(ids) == 0 || run.noDebug {
		code := 0
		if len(res.Violations) > 0 {
			code = 1
		}
		s.send(&dap.ExitedEvent{Event: event("exited"), Body: dap.ExitedEventBody{ExitCode: code}})
		s.terminated()
		return
	}
	shown := res.Violations[0]
	if report.Known {
		// The trace stored before is the one the views, the trees and trace show read as this
		// id: show it, not the copy just found (its sites and labels may differ).
		if t, _, err := s.db.Trace(ids[0]); err == nil {
			shown = t
		}
	}
	s.show(newTrace(ids[0], shown))
	s.whenConfigured(func() { s.firstStop(run.onEntry) })
}

// goalTrace is the stored trace to the goal scenario, if the check reached it.
func goalTrace(goal string, res *engine.Result, ids []int64) (*engine.Trace, int64) {
	_, scenarios := service.OtherTraces(res, ids)
	for i, sc := range res.Scenarios {
		if sc.Name == goal && sc.Reached && scenarios[i] != 0 {
			return sc.Trace, scenarios[i]
		}
	}
	return nil, 0
}

// summarize says what a check did and found, as the debug console shows it.
func summarize(run *checkRun, res *engine.Result, ids []int64, elapsed time.Duration, dbPath string, r service.Report) string {
	var b strings.Builder
	tracefmt.Summary(&b, tracefmt.Check{Model: run.check.Model, Params: run.check.Params, Package: run.build.Package.ImportPath,
		Search: orDefault(run.check.Settings.Search, "bfs"), Goal: run.check.Settings.Goal, Elapsed: elapsed}, res)
	service.WritePartitions(&b, res)
	if res.Coverage != nil {
		tracefmt.WriteExercised(&b, tracefmt.Exercised{Transitions: res.Transitions, Expanded: res.Expanded, Events: res.Events, Coverage: res.Coverage})
	}
	for i, t := range res.Violations {
		fmt.Fprintf(&b, "violation: %s (%d steps)\n", tracefmt.Violation(t.Violation), len(t.Steps))
		switch {
		case i < len(ids) && slices.Contains(r.Before, ids[i]):
			fmt.Fprintf(&b, "the same as trace %d in %s, found before (the same violation along the same steps): not stored again\n", ids[i], dbPath)
		case i < len(ids):
			fmt.Fprintf(&b, "stored as trace %d in %s\n", ids[i], dbPath)
		}
	}
	if r.Comparison != "" {
		fmt.Fprintf(&b, "from bookmark %s: %s\n", r.Bookmark.Name, r.Comparison)
	}
	return b.String()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// settings are the launch configuration's search settings, as every run records them.
func settings(c *launchConfig) service.RunSettings {
	return service.RunSettings{Search: c.Search, MaxDepth: c.MaxDepth, MaxStates: c.MaxStates, Steps: c.Steps,
		Seed: c.Seed, Deadline: c.Deadline, SelfCheck: c.SelfCheck, Coverage: c.Coverage, CoverPackages: c.CoverPackages, Goal: c.Goal, Partitions: c.Partitions}
}
