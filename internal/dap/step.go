package dap

import (
	"fmt"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/tracefmt"

	"github.com/google/go-dap"
)

// Stepping moves through the stored trace; nothing is re-executed. next is one step forward;
// stepIn stops at each Choose call inside the next step; stepOut finishes the current step;
// stepBack is one step back; continue and reverseContinue run to the next breakpoint either way
// (scan.go); restartFrame goes back to just before a frame's step; goto jumps to a step at a
// source line; cmc/gotoStep jumps to a step by number.

// stopAt moves to p and tells the client. Variable references from earlier stops die here.
func (s *Session) stopAt(p engine.Cursor, reason, text string, hits []int) {
	s.pos = p
	s.stopped = true
	s.handles.reset()
	s.log.Debug("stop", "trace", s.tr.id, "step", p.Step, "choice", p.Choice, "reason", reason)
	if s.views != nil {
		s.views.Show(s.tr.id, p.Shown())
	}
	if v := s.tr.t.Violation; v != nil && p == s.tr.t.End() && (reason == "step" || reason == "goto") {
		reason, text = "exception", tracefmt.Violation(v)
	}
	e := &dap.StoppedEvent{Event: event("stopped")}
	e.Body = dap.StoppedEventBody{Reason: reason, ThreadId: s.tr.threadOf(p), AllThreadsStopped: true,
		Text: text, HitBreakpointIds: hits, Description: describe(reason, p)}
	s.send(e)
}

func describe(reason string, p engine.Cursor) string {
	switch reason {
	case "exception":
		return "Violation"
	case "entry":
		return "Initial state"
	}
	if p.Inside() {
		return fmt.Sprintf("Step %d, Choose #%d", p.Step, p.Choice)
	}
	return fmt.Sprintf("Step %d", p.Step)
}

func (s *Session) onNext(req *dap.NextRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	p, _ := s.tr.t.StepOver(s.pos) // at the end of the trace, stays there
	s.send(&dap.NextResponse{Response: response(&req.Request)})
	s.stopAt(p, "step", s.endText(p), nil)
}

func (s *Session) onStepIn(req *dap.StepInRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	p, _ := s.tr.t.StepIn(s.pos)
	s.send(&dap.StepInResponse{Response: response(&req.Request)})
	s.stopAt(p, "step", s.endText(p), nil)
}

func (s *Session) onStepOut(req *dap.StepOutRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	p, _ := s.tr.t.StepOver(s.pos)
	s.send(&dap.StepOutResponse{Response: response(&req.Request)})
	s.stopAt(p, "step", s.endText(p), nil)
}

func (s *Session) onStepBack(req *dap.StepBackRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	p, _ := s.tr.t.StepBack(s.pos)
	s.send(&dap.StepBackResponse{Response: response(&req.Request)})
	reason := "step"
	if p.Step == 0 {
		reason = "entry"
	}
	s.stopAt(p, reason, "", nil)
}

// endText says when a step could not move because the trace ends there.
func (s *Session) endText(p engine.Cursor) string {
	if p == s.pos && p == s.tr.t.End() {
		return "end of trace"
	}
	return ""
}

func (s *Session) onContinue(req *dap.ContinueRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	r := &dap.ContinueResponse{Response: response(&req.Request)}
	r.Body.AllThreadsContinued = true
	s.send(r)
	s.run(true)
}

func (s *Session) onReverseContinue(req *dap.ReverseContinueRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	s.send(&dap.ReverseContinueResponse{Response: response(&req.Request)})
	s.run(false)
}

// pause has nothing to stop: moving through a trace is instant, and a check is cancelled, not
// paused.
func (s *Session) onPause(req *dap.PauseRequest) {
	if s.check != nil {
		s.sendError(&req.Request, errUnsupported, "pause: a check cannot be paused; cancel it in the progress notification, or stop the session")
		return
	}
	s.send(&dap.PauseResponse{Response: response(&req.Request)})
}

// restartFrame goes back to just before the frame's step.
func (s *Session) onRestartFrame(req *dap.RestartFrameRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	p, ok := s.framePos(req.Arguments.FrameId)
	if !ok {
		s.sendError(&req.Request, errBadArgs, fmt.Sprintf("restartFrame: frame %d is not on the stack now", req.Arguments.FrameId))
		return
	}
	s.send(&dap.RestartFrameResponse{Response: response(&req.Request)})
	s.stopAt(engine.After(max(p.Step-1, 0)), "restart", "", nil)
}

// gotoTargets lists the steps that run a source line: its handler or a Choose call there.
func (s *Session) onGotoTargets(req *dap.GotoTargetsRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	a := req.Arguments
	if s.files.saw(a.Source.Path) {
		s.bps.verify(s) // the new path may change which editor file a recorded one is
	}
	s.gotos = s.gotos[:0]
	r := &dap.GotoTargetsResponse{Response: response(&req.Request)}
	r.Body.Targets = []dap.GotoTarget{}
	for n := 1; n <= s.tr.len() && len(s.gotos) < maxGotoTargets; n++ {
		st := s.tr.step(n)
		if s.atLine(st.Site, a.Source.Path, a.Line) {
			s.gotos = append(s.gotos, engine.After(n))
		}
		for i, c := range st.Choices {
			if s.atLine(c.Site, a.Source.Path, a.Line) {
				s.gotos = append(s.gotos, engine.Cursor{Step: n, Choice: i + 1})
			}
		}
	}
	for i, p := range s.gotos {
		f := s.frame(p)
		r.Body.Targets = append(r.Body.Targets, dap.GotoTarget{Id: i + 1, Label: f.Name, Line: a.Line})
	}
	s.send(r)
}

const maxGotoTargets = 200

func (s *Session) onGoto(req *dap.GotoRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	id := req.Arguments.TargetId
	if id < 1 || id > len(s.gotos) {
		s.sendError(&req.Request, errBadArgs, fmt.Sprintf("goto: target %d is not one gotoTargets gave", id))
		return
	}
	s.send(&dap.GotoResponse{Response: response(&req.Request)})
	s.stopAt(s.gotos[id-1], "goto", "", nil)
}

// gotoStep moves to the end of step n (0: the initial state).
func (s *Session) gotoStep(n int) error {
	if n < 0 || n > s.tr.len() {
		return fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", n, s.tr.len())
	}
	s.stopAt(engine.After(n), "goto", "", nil)
	return nil
}
