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

// A stop says why the session stopped, for the stopped event: the reason (a DAP word: step,
// breakpoint, data breakpoint, goto, entry, exception...), why in the user's words (the label
// the editor shows on the thread, such as "Paused on data breakpoint: B.routes[\"Dest=D\"] changed"),
// details (text) and the breakpoints that hit.
type stop struct {
	reason string
	why    string // "" for the reason's usual label (stopAt)
	text   string
	hits   []int
	enter  bool // a breakpoint on a line of the code: stop on it inside the step (scan.go)
}

// stopAt moves to p and tells the client. Variable references from earlier stops die here.
//
// The violation belongs to the last step only: a stop there that no breakpoint caused is an
// exception stop (the editor then asks exceptionInfo and shows its widget); a breakpoint that
// hits there keeps its reason and mentions the violation in its text.
func (s *Session) stopAt(p engine.Cursor, st stop) {
	s.pos = p
	s.stopped = true
	s.handles.reset()
	s.log.Debug("stop", "trace", s.tr.id, "step", p.Step, "choice", p.Choice, "reason", st.reason)
	if s.views != nil {
		s.views.Show(s.tr.id, p.Shown())
	}
	if v := s.tr.t.Violation; v != nil && v.Kind == "scenario" && p == s.tr.t.End() && len(st.hits) == 0 {
		// A trace to a scenario ends where it is reached (or, not reached, at the best progress).
		st = stop{reason: "goal", text: tracefmt.Violation(v), why: fmt.Sprintf("Scenario %q %s", v.Name, v.Message)}
	} else if v != nil && p == s.tr.t.End() {
		if len(st.hits) == 0 {
			st = stop{reason: "exception", text: tracefmt.Violation(v)}
		} else if st.text == "" {
			st.text = "violation: " + tracefmt.Violation(v)
		}
	}
	if st.why == "" {
		st.why = s.describe(st, p)
	}
	e := &dap.StoppedEvent{Event: event("stopped")}
	e.Body = dap.StoppedEventBody{Reason: st.reason, ThreadId: s.tr.threadOf(p), AllThreadsStopped: true,
		Text: st.text, HitBreakpointIds: st.hits, Description: st.why}
	s.send(e)
}

// describe is the usual label of a stop at p: why it stopped there, not where (the Call Stack
// and the editor show where).
func (s *Session) describe(st stop, p engine.Cursor) string {
	where := fmt.Sprintf("step %d", p.Step)
	if p.Inside() {
		where = fmt.Sprintf("Choose #%d of step %d", p.Choice, p.Step)
	}
	switch {
	case st.reason == "exception":
		return "Violation: " + st.text
	case p.Step == 0 && !p.Inside():
		return "Paused at the initial state"
	case st.reason == "step" && p == s.tr.t.End():
		return "Paused at the end of the trace"
	case st.reason == "step" && p.Inside():
		return "Paused on step in: " + where
	case st.reason == "goto":
		return "Paused on goto: " + where
	case st.reason == "restart":
		return fmt.Sprintf("Paused on restart frame: before step %d", p.Step+1)
	}
	return "Paused on " + st.reason
}

func (s *Session) onNext(req *dap.NextRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	p, _ := s.tr.t.StepOver(s.pos) // at the end of the trace, stays there
	s.send(&dap.NextResponse{Response: response(&req.Request)})
	s.stopAt(p, stop{reason: "step", text: s.endText(p)})
}

func (s *Session) onStepIn(req *dap.StepInRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	if k := s.pos.Step + 1; s.pos.Inside() || k <= s.tr.len() {
		if s.pos.Inside() {
			k = s.pos.Step
		}
		if s.launch.StepInto == "code" && s.stepInto(req, k) {
			return
		}
	}
	p, _ := s.tr.t.StepIn(s.pos)
	s.send(&dap.StepInResponse{Response: response(&req.Request)})
	s.stopAt(p, stop{reason: "step", text: s.endText(p)})
}

func (s *Session) onStepOut(req *dap.StepOutRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	p, _ := s.tr.t.StepOver(s.pos)
	s.send(&dap.StepOutResponse{Response: response(&req.Request)})
	s.stopAt(p, stop{reason: "step", text: s.endText(p)})
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
	s.stopAt(p, stop{reason: reason})
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
	s.stopAt(engine.After(max(p.Step-1, 0)), stop{reason: "restart"})
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
	s.stopAt(s.gotos[id-1], stop{reason: "goto"})
}

// gotoStep moves to the end of step n (0: the initial state).
func (s *Session) gotoStep(n int) error {
	if n < 0 || n > s.tr.len() {
		return fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", n, s.tr.len())
	}
	s.stopAt(engine.After(n), stop{reason: "goto"})
	return nil
}
