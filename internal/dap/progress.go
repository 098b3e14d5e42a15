package dap

import (
	"fmt"
	"time"

	"github.com/cmc-go/cmc/tracefmt"

	"github.com/cmc-go/cmc/engine"
	"github.com/google/go-dap"
)

// A check reports progress with DAP progress events (VS Code shows them as a cancellable
// notification): states, states per second and depth, about once a second as the worker sends
// them. Clients that do not show progress get only the summary at the end.

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
	secs := max(time.Since(run.start).Seconds(), 1e-3)
	e := &dap.ProgressUpdateEvent{Event: event("progressUpdate")}
	e.Body = dap.ProgressUpdateEventBody{ProgressId: run.progressID,
		Message: fmt.Sprintf("%s states · %s states/s · depth %d%s", tracefmt.Thousands(p.States), tracefmt.Thousands(int64(float64(p.States)/secs)), p.Depth, tracefmt.Guidance(p))}
	s.send(e)
}

func (s *Session) progressEnd(run *checkRun, msg string) {
	if !run.progress {
		return
	}
	e := &dap.ProgressEndEvent{Event: event("progressEnd")}
	e.Body = dap.ProgressEndEventBody{ProgressId: run.progressID, Message: msg}
	s.send(e)
}
