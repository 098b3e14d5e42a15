package dap

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/google/go-dap"
)

// Inside a step: with stepInto "code", Step Into at a step runs that step's handler in the
// user's code under Delve, the Go debugger (service.Debugger), and the session relays the
// editor's requests to it: the Call Stack shows the handler's real frames above the trace's, the
// Variables pane their locals, and next, step in, step out and continue move through the
// protocol code. Leaving the handler (step out past it, continue) ends the step, and the session
// is back at trace level after it. Nothing the user does there can change the trace: the editor
// cannot set variables, evaluate refuses function calls, and the worker checks that the step
// still reaches the stored state.
//
// While inside step k the trace position is the state before it (after step k-1).

// An inside is a step running under Delve.
type inside struct {
	d      *service.Debugger
	step   int
	thread int              // Delve's goroutine of the last stop
	frames []dap.StackFrame // the user's frames at the last stop, as Delve numbers them
}

// delveIDs shifts Delve's frame ids and variable references above the session's own.
const delveIDs = 1 << 30

// relayInside handles a request while inside a step, or leaves the step for a request that
// moves through the trace; it reports whether the request was handled.
func (s *Session) relayInside(m dap.Message) bool {
	in := s.inside
	if !s.stopped {
		// The step runs under Delve: only ending the session leaves it; the usual handlers
		// refuse what needs a stop.
		switch req := m.(type) {
		case *dap.DisconnectRequest, *dap.TerminateRequest, *dap.RestartRequest:
			s.leaveInside()
		case *dap.SetBreakpointsRequest:
			s.delveBreakpoint(req)
		}
		return false
	}
	if h, ok := m.(*hoverRequest); ok {
		m = h.EvaluateRequest // under Delve a hover is Delve's, of the Go locals
	}
	switch req := m.(type) {
	case *dap.StackTraceRequest:
		if !s.stopped || req.Arguments.ThreadId != s.insideThread() {
			return false
		}
		s.insideStack(req)
	case *dap.ScopesRequest:
		if req.Arguments.FrameId < delveIDs {
			return false
		}
		s.relayRead(&req.Request, &dap.ScopesRequest{Request: dap.Request{Command: "scopes"},
			Arguments: dap.ScopesArguments{FrameId: req.Arguments.FrameId - delveIDs}})
	case *dap.VariablesRequest:
		if req.Arguments.VariablesReference < delveIDs {
			return false
		}
		a := req.Arguments
		a.VariablesReference -= delveIDs
		s.relayRead(&req.Request, &dap.VariablesRequest{Request: dap.Request{Command: "variables"}, Arguments: a})
	case *dap.EvaluateRequest:
		a := req.Arguments
		if a.FrameId == 0 && len(in.frames) > 0 {
			a.FrameId = in.frames[0].Id + delveIDs
		}
		if a.FrameId < delveIDs {
			return false
		}
		if e := strings.TrimSpace(a.Expression); strings.HasPrefix(e, "call ") || strings.HasPrefix(e, "dlv ") {
			s.sendError(&req.Request, errBadArgs, "evaluate: inside a step cmc only reads: a function call or a Delve command could change the step's state")
			return true
		}
		a.FrameId -= delveIDs
		s.relayRead(&req.Request, &dap.EvaluateRequest{Request: dap.Request{Command: "evaluate"}, Arguments: a})
	case *dap.SetBreakpointsRequest:
		s.delveBreakpoint(req)
		return false // and at trace level as ever
	case *dap.NextRequest:
		s.resumeInside(&req.Request, &dap.NextResponse{Response: response(&req.Request)},
			&dap.NextRequest{Request: dap.Request{Command: "next"}, Arguments: dap.NextArguments{ThreadId: in.thread}}, false)
	case *dap.StepInRequest:
		s.resumeInside(&req.Request, &dap.StepInResponse{Response: response(&req.Request)},
			&dap.StepInRequest{Request: dap.Request{Command: "stepIn"}, Arguments: dap.StepInArguments{ThreadId: in.thread}}, false)
	case *dap.StepOutRequest:
		s.resumeInside(&req.Request, &dap.StepOutResponse{Response: response(&req.Request)},
			&dap.StepOutRequest{Request: dap.Request{Command: "stepOut"}, Arguments: dap.StepOutArguments{ThreadId: in.thread}}, false)
	case *dap.ContinueRequest:
		r := &dap.ContinueResponse{Response: response(&req.Request)}
		r.Body.AllThreadsContinued = true
		s.resumeInside(&req.Request, r,
			&dap.ContinueRequest{Request: dap.Request{Command: "continue"}, Arguments: dap.ContinueArguments{ThreadId: in.thread}}, true)
	case *dap.StepBackRequest:
		// Back out of the step: to the state before it.
		if !s.requireStop(&req.Request) {
			return true
		}
		s.leaveInside()
		s.send(&dap.StepBackResponse{Response: response(&req.Request)})
		s.stopAt(s.pos, stop{reason: "step", why: fmt.Sprintf("Paused on step back: before step %d", in.step)})
	case *dap.ThreadsRequest, *dap.SetFunctionBreakpointsRequest, *dap.SetDataBreakpointsRequest,
		*dap.DataBreakpointInfoRequest, *dap.SetExceptionBreakpointsRequest, *dap.ExceptionInfoRequest:
		return false
	case *customRequest:
		if req.Command == "cmc/gotoStep" || req.Command == "cmc/openTrace" {
			s.leaveInside()
		}
		return false
	default:
		s.leaveInside() // goto, restart frame, reverse continue, restart, disconnect...
		return false
	}
	return true
}

// delveBreakpoint sets a file's breakpoints in Delve too (Delve takes them while it runs).
func (s *Session) delveBreakpoint(req *dap.SetBreakpointsRequest) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.inside.d.SetBreakpoints(ctx, req.Arguments); err != nil {
		s.output("console", "cmc: "+err.Error()+"\n")
	}
}

// insideThread is the thread of the process whose step runs.
func (s *Session) insideThread() int {
	if id, ok := s.tr.thread[s.tr.step(s.inside.step).Proc]; ok {
		return id
	}
	return 1
}

// stepInto enters step k in the user's code; false: Delve cannot be had, and the caller steps
// in at trace level instead (the session said why, once).
func (s *Session) stepInto(req *dap.StepInRequest, k int) bool {
	dlv, err := s.delve()
	if err != nil {
		if !s.toldNoDelve {
			s.toldNoDelve = true
			s.output("important", "cmc: Step Into stops at Choose calls: "+err.Error()+"\n")
		}
		return false
	}
	s.send(&dap.StepInResponse{Response: response(&req.Request)})
	s.enter(dlv, k, true, false)
	return true
}

// enter runs step k under Delve (the request that asked was answered) and stops at its
// handler's first line (atHandler) or at the first breakpoint in it; when the step ends without
// stopping, cont goes on through the trace.
func (s *Session) enter(dlv string, k int, atHandler, cont bool) {
	s.pos = engine.After(k - 1)
	s.stopped = false
	c, t, b, bps := s.launch, s.tr.t, s.build, s.delveBreakpoints()
	ctx := s.startOp(context.Background(), "", 0)
	go func() {
		var d *service.Debugger
		var st service.DebugStop
		var err error
		if b == nil {
			b, err = service.Open(ctx, c.Cwd, c.Program)
		}
		if err == nil {
			d, err = b.DebugStep(ctx, dlv, t, k, "", s.modelOutput)
		}
		if err == nil {
			if st, err = d.Enter(ctx, bps, atHandler); err != nil {
				d.Close()
			}
		}
		if !s.post(func() { s.endOp(); s.entered(d, k, st, err, cont) }) && d != nil && err == nil {
			d.Close()
		}
	}()
}

// entered handles the first stop of a step under Delve.
func (s *Session) entered(d *service.Debugger, k int, st service.DebugStop, err error, cont bool) {
	if err != nil {
		s.output("important", fmt.Sprintf("cmc: cannot step into step %d: %v\n", k, err))
		s.stopAt(s.pos, stop{reason: "step", text: "could not step into the code"})
		return
	}
	s.inside = &inside{d: d, step: k}
	s.insideStop(st, cont)
}

// resumeInside answers req, sends what runs the program to Delve and stops where it stops; at
// the end of the step, a continue goes on through the trace.
func (s *Session) resumeInside(req *dap.Request, resp dap.Message, delveReq dap.RequestMessage, cont bool) {
	if !s.requireStop(req) {
		return
	}
	s.send(resp)
	s.stopped = false
	d := s.inside.d
	ctx := s.startOp(context.Background(), "", req.Seq)
	go func() {
		st, err := d.Resume(ctx, delveReq)
		s.post(func() {
			if s.inside == nil || s.inside.d != d {
				return // left meanwhile (disconnect, restart, a move through the trace): Delve is closed
			}
			s.endOp()
			if err != nil {
				k := s.inside.step
				s.leaveInside()
				s.output("important", fmt.Sprintf("cmc: step %d under Delve: %v\n", k, err))
				s.stopAt(s.pos, stop{reason: "step"})
				return
			}
			s.insideStop(st, cont)
		})
	}()
}

// insideStop shows a stop inside the step, or the end of it.
func (s *Session) insideStop(st service.DebugStop, cont bool) {
	in := s.inside
	if st.Done {
		s.leaveInside()
		s.pos = engine.After(in.step)
		if st.Result != "ok" && !s.expectedFailure(in.step, st.Result) {
			s.output("important", fmt.Sprintf("cmc: step %d: %s\n", in.step, st.Result))
		}
		if cont {
			s.run(true)
			return
		}
		s.stopAt(s.pos, stop{reason: "step", why: fmt.Sprintf("Paused after step %d: its handler returned", in.step)})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	frames, err := in.d.Frames(ctx, st.Thread)
	if err != nil {
		s.leaveInside()
		s.output("important", fmt.Sprintf("cmc: step %d under Delve: %v\n", in.step, err))
		s.stopAt(s.pos, stop{reason: "step"})
		return
	}
	in.thread, in.frames = st.Thread, frames
	s.stopped = true
	s.handles.reset()
	reason, why := "step", fmt.Sprintf("Paused in step %d: %s", in.step, shortFunc(frames[0].Name))
	if st.Reason == "breakpoint" {
		reason = "breakpoint"
		why = fmt.Sprintf("Paused on breakpoint in step %d: %s:%d", in.step, frameFile(frames[0]), frames[0].Line)
	}
	e := &dap.StoppedEvent{Event: event("stopped")}
	e.Body = dap.StoppedEventBody{Reason: reason, ThreadId: s.insideThread(), AllThreadsStopped: true, Description: why}
	s.send(e)
}

// expectedFailure: the trace's violation is this step's failure, so the step fails again.
func (s *Session) expectedFailure(k int, result string) bool {
	return k == s.tr.len() && s.tr.t.Violation != nil && strings.HasPrefix(result, "the step failed")
}

// leaveInside ends the step under Delve; the position stays before the step.
func (s *Session) leaveInside() {
	if s.inside == nil {
		return
	}
	s.inside.d.Close()
	s.inside = nil
	s.handles.reset()
}

// insideStack is the Call Stack inside step k: the user's frames, the handler's named as the
// step, then the trace's steps before it.
func (s *Session) insideStack(req *dap.StackTraceRequest) {
	in := s.inside
	var frames []dap.StackFrame
	for i, f := range in.frames {
		f.Id += delveIDs
		if i == len(in.frames)-1 {
			f.Name = fmt.Sprintf("%s › %s", stepName(in.step, s.tr.step(in.step)), shortFunc(f.Name))
		}
		frames = append(frames, f)
	}
	for i := in.step - 1; i >= 0; i-- {
		frames = append(frames, s.frame(engine.After(i)))
	}
	a := req.Arguments
	start := min(max(a.StartFrame, 0), len(frames))
	end := len(frames)
	if a.Levels > 0 {
		end = min(start+a.Levels, end)
	}
	r := &dap.StackTraceResponse{Response: response(&req.Request)}
	r.Body.StackFrames, r.Body.TotalFrames = frames[start:end], len(frames)
	s.send(r)
}

// relayRead sends a request that only reads to Delve and answers the editor with its response,
// Delve's ids shifted.
func (s *Session) relayRead(req *dap.Request, delveReq dap.RequestMessage) {
	if !s.requireStop(req) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := s.inside.d.Do(ctx, delveReq)
	if err != nil {
		s.sendError(req, errBadArgs, req.Command+": "+strings.TrimPrefix(err.Error(), "debugger: "))
		return
	}
	shift := func(ref int) int {
		if ref > 0 {
			return ref + delveIDs
		}
		return ref
	}
	switch r := resp.(type) {
	case *dap.ScopesResponse:
		for i := range r.Body.Scopes {
			r.Body.Scopes[i].VariablesReference = shift(r.Body.Scopes[i].VariablesReference)
		}
	case *dap.VariablesResponse:
		for i := range r.Body.Variables {
			r.Body.Variables[i].VariablesReference = shift(r.Body.Variables[i].VariablesReference)
		}
	case *dap.EvaluateResponse:
		r.Body.VariablesReference = shift(r.Body.VariablesReference)
	}
	rr := resp.GetResponse()
	rr.Seq, rr.RequestSeq = 0, req.Seq
	s.send(resp)
}

// delveBreakpoints are the editor's source breakpoints, for Delve.
func (s *Session) delveBreakpoints() []dap.SetBreakpointsArguments {
	var out []dap.SetBreakpointsArguments
	paths := make([]string, 0, len(s.bps.source))
	for p := range s.bps.source {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		a := dap.SetBreakpointsArguments{Source: dap.Source{Path: p}}
		for _, b := range s.bps.source[p] {
			a.Breakpoints = append(a.Breakpoints, dap.SourceBreakpoint{Line: b.line, Condition: b.cond, HitCondition: b.hitCond, LogMessage: b.logMsg})
		}
		out = append(out, a)
	}
	return out
}

// shortFunc is a function's name without its package: "(*Router).recvRERR".
func shortFunc(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 && !strings.HasPrefix(name, "(") {
		return name[i+1:]
	}
	return name
}

func frameFile(f dap.StackFrame) string {
	if f.Source == nil {
		return "?"
	}
	return filepath.Base(f.Source.Path)
}
