package dap

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
	"github.com/cmc-go/cmc/worker"
	"github.com/google/go-dap"
)

// A check runs in a worker process (coord.Check), reports progress while it runs, stores what
// it found, and either stops on the first violation's trace or ends the session with a summary.

// A checkRun is a check in progress.
type checkRun struct {
	progressID string
	progress   bool // the client shows progress events
	start      time.Time
	model      string
	params     map[string]string
	opts       worker.CheckOptions
	build      *build
	settings   json.RawMessage
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
		model:      p.model,
		params:     p.params,
		build:      p.build,
		noDebug:    c.NoDebug,
		onEntry:    c.StopOnEntry,
		settings:   settings(c, p.steps),
		opts: worker.CheckOptions{Search: c.Search, MaxDepth: c.MaxDepth, MaxStates: c.MaxStates,
			Steps: c.Steps, Seed: c.Seed, Deadline: c.Deadline, From: p.from, FromSteps: p.steps,
			SelfCheck: worker.SelfCheck(c.SelfCheck)},
	}
	s.check = run
	s.log.Info("check", "model", run.model, "package", run.build.pkg.ImportPath, "search", run.opts.Search)
	ctx := s.startOp(context.Background(), run.progressID, 0)
	s.progressStart(run)
	req := &worker.Request{Model: run.model, Params: run.params, Check: &run.opts}
	go func() {
		res, err := coord.Check(ctx, run.build.bin, req, func(pr engine.Progress) { s.progressUpdate(run, pr) }, s.modelOutput)
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
	s.log.Info("check ended", "model", run.model, "cancelled", cancelled, "err", err, "elapsed", end.Sub(run.start))
	switch {
	case cancelled:
		s.progressEnd(run, "cancelled")
		s.output("console", "check cancelled\n")
		s.terminated()
		return
	case err != nil:
		s.progressEnd(run, "failed")
		s.output("stderr", fmt.Sprintf("check %s: %v\n", run.model, err))
		s.terminated()
		return
	}
	_, ids, err := s.db.AddResult(store.Run{Model: run.model, Package: run.build.pkg.ImportPath, Params: run.params,
		Settings: run.settings, Code: run.build.pkg.CodeID, Start: run.start, End: end}, res, end)
	if err != nil {
		s.output("stderr", fmt.Sprintf("check %s: store the traces: %v\n", run.model, err))
	}
	summary := summarize(run, res, ids, end.Sub(run.start), s.db.Path())
	head := strings.SplitN(summary, "\n", 3) // what was checked; how many states
	s.progressEnd(run, strings.Join(head[:min(2, len(head))], ": "))
	s.output("console", summary)
	if len(res.Violations) == 0 || len(ids) == 0 || run.noDebug {
		code := 0
		if len(res.Violations) > 0 {
			code = 1
		}
		s.send(&dap.ExitedEvent{Event: event("exited"), Body: dap.ExitedEventBody{ExitCode: code}})
		s.terminated()
		return
	}
	s.show(newTrace(ids[0], res.Violations[0]))
	s.whenConfigured(func() { s.firstStop(run.onEntry) })
}

// summarize says what a check did and found, as the debug console shows it.
func summarize(run *checkRun, res *engine.Result, ids []int64, elapsed time.Duration, dbPath string) string {
	var b strings.Builder
	tracefmt.Summary(&b, tracefmt.Check{Model: run.model, Params: run.params, Package: run.build.pkg.ImportPath,
		Search: orDefault(run.opts.Search, "bfs"), Elapsed: elapsed}, res)
	for i, t := range res.Violations {
		fmt.Fprintf(&b, "violation: %s (%d steps)\n", tracefmt.Violation(t.Violation), len(t.Steps))
		if i < len(ids) {
			fmt.Fprintf(&b, "stored as trace %d in %s\n", ids[i], dbPath)
		}
	}
	return b.String()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// settings are a check's options as a run records them: the bookmark, not the prefix trace.
func settings(c *launchConfig, fromSteps int) json.RawMessage {
	b, _ := json.Marshal(struct {
		Search    string  `json:"search"`
		MaxDepth  int     `json:"max_depth,omitempty"`
		MaxStates int64   `json:"max_states,omitempty"`
		Steps     int     `json:"steps,omitempty"`
		Seed      uint64  `json:"seed,omitempty"`
		Deadline  float64 `json:"deadline,omitempty"`
		Bookmark  string  `json:"bookmark,omitempty"`
		FromSteps int     `json:"from_steps,omitempty"`
	}{c.Search, c.MaxDepth, c.MaxStates, c.Steps, c.Seed, c.Deadline, c.Bookmark, fromSteps})
	return b
}
