package dap

import (
	"fmt"

	"github.com/cmc-go/cmc/tracefmt"

	"github.com/cmc-go/cmc/engine"
	"github.com/google/go-dap"
)

// A check reports progress with DAP progress events (VS Code shows them as a cancellable
// notification), in the words of cmcdap check's progress line (tracefmt.Progress): states,
// states per second, depth and frontier, and a partitioned check's share of each partition,
// about once a second as the worker sends them. Clients that do not show progress get only the
// summary at the end.

func (s *Session) progressStart(run *checkRun) {
	if !run.progress {
		s.output("console", fmt.Sprintf("checking %s%s…\n", run.check.Model, tracefmt.Params(run.check.Params)))
		return
	}
	e := &dap.ProgressStartEvent{Event: event("progressStart")}
	e.Body = dap.ProgressStartEventBody{ProgressId: run.progressID, Title: "cmc: checking " + run.check.Model,
		Cancellable: true, Message: "starting the worker"}
	s.send(e)
}

// progressUpdate is called on the check's goroutine; send is safe there.
func (s *Session) progressUpdate(run *checkRun, p engine.Progress) {
	if !run.progress {
		return
	}
	e := &dap.ProgressUpdateEvent{Event: event("progressUpdate")}
	e.Body = dap.ProgressUpdateEventBody{ProgressId: run.progressID, Message: tracefmt.Progress(p, s.cfg.now().Sub(run.start))}
	s.send(e)
}

// progressFinal reports a partitioned check's final figures before its end: the worker reports
// at most once a second, so the last levels, and every level of a check shorter than that,
// would not show how the partitions shared the states.
func (s *Session) progressFinal(run *checkRun, res *engine.Result) {
	if len(res.Partitions) == 0 {
		return
	}
	owned := make([]int64, len(res.Partitions))
	for i, f := range res.Partitions {
		owned[i] = f.States
	}
	s.progressUpdate(run, engine.Progress{States: res.States, Transitions: res.Transitions, Depth: res.Depth, Partitions: owned})
}

func (s *Session) progressEnd(run *checkRun, msg string) {
	if !run.progress {
		return
	}
	e := &dap.ProgressEndEvent{Event: event("progressEnd")}
	e.Body = dap.ProgressEndEventBody{ProgressId: run.progressID, Message: msg}
	s.send(e)
}
