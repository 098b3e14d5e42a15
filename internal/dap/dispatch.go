package dap

import (
	"fmt"

	"github.com/google/go-dap"
)

// dispatch routes a request to its handler; the handlers live in one file per request family.
func (s *Session) dispatch(m dap.Message) {
	if s.inside != nil && s.relayInside(m) {
		return
	}
	switch req := m.(type) {
	case *dap.InitializeRequest:
		s.onInitialize(req)
	case *dap.LaunchRequest:
		s.onLaunch(req)
	case *dap.AttachRequest:
		s.sendError(&req.Request, errUnsupported, `attach: cmcdap has nothing to attach to; use "request": "launch" with "program" (check) or "trace" (open a stored trace)`)
	case *dap.ConfigurationDoneRequest:
		s.onConfigurationDone(req)
	case *dap.SetBreakpointsRequest:
		s.onSetBreakpoints(req)
	case *dap.SetFunctionBreakpointsRequest:
		s.onSetFunctionBreakpoints(req)
	case *dap.SetExceptionBreakpointsRequest:
		r := &dap.SetExceptionBreakpointsResponse{Response: response(&req.Request)}
		r.Body.Breakpoints = []dap.Breakpoint{}
		s.send(r)
	case *dap.DataBreakpointInfoRequest:
		s.onDataBreakpointInfo(req)
	case *dap.SetDataBreakpointsRequest:
		s.onSetDataBreakpoints(req)
	case *dap.ThreadsRequest:
		s.onThreads(req)
	case *dap.StackTraceRequest:
		s.onStackTrace(req)
	case *dap.ScopesRequest:
		s.onScopes(req)
	case *dap.VariablesRequest:
		s.onVariables(req)
	case *dap.EvaluateRequest:
		s.onEvaluate(req)
	case *hoverRequest:
		s.onHover(req)
	case *dap.ExceptionInfoRequest:
		s.onExceptionInfo(req)
	case *dap.NextRequest:
		s.onNext(req)
	case *dap.StepInRequest:
		s.onStepIn(req)
	case *dap.StepOutRequest:
		s.onStepOut(req)
	case *dap.StepBackRequest:
		s.onStepBack(req)
	case *dap.ContinueRequest:
		s.onContinue(req)
	case *dap.ReverseContinueRequest:
		s.onReverseContinue(req)
	case *dap.PauseRequest:
		s.onPause(req)
	case *dap.RestartFrameRequest:
		s.onRestartFrame(req)
	case *dap.GotoTargetsRequest:
		s.onGotoTargets(req)
	case *dap.GotoRequest:
		s.onGoto(req)
	case *dap.RestartRequest:
		s.onRestart(req)
	case *dap.CancelRequest:
		// The reading goroutine already cancelled the operation the request names.
		s.send(&dap.CancelResponse{Response: response(&req.Request)})
	case *dap.TerminateRequest:
		s.onTerminate(req)
	case *dap.DisconnectRequest:
		s.onDisconnect(req)
	case *customRequest:
		s.onCustom(req)
	case *badRequest:
		s.sendError(&req.Request, errUnsupported, req.err.Error())
	case dap.RequestMessage:
		r := req.GetRequest()
		s.sendError(r, errUnsupported, fmt.Sprintf("cmcdap does not support the %q request", r.Command))
	default:
		s.log.Warn("ignored a message that is not a request", "type", fmt.Sprintf("%T", m))
	}
}

func (s *Session) onInitialize(req *dap.InitializeRequest) {
	s.client = req.Arguments
	r := &dap.InitializeResponse{Response: response(&req.Request)}
	r.Body = dap.Capabilities{
		SupportsConfigurationDoneRequest:  true,
		SupportsFunctionBreakpoints:       true,
		SupportsConditionalBreakpoints:    true,
		SupportsHitConditionalBreakpoints: true,
		SupportsEvaluateForHovers:         true,
		SupportsStepBack:                  true,
		SupportsRestartFrame:              true,
		SupportsGotoTargetsRequest:        true,
		SupportsRestartRequest:            true,
		SupportsExceptionInfoRequest:      true,
		SupportsDelayedStackTraceLoading:  true,
		SupportsLogPoints:                 true,
		SupportsTerminateRequest:          true,
		SupportsDataBreakpoints:           true,
		SupportsCancelRequest:             true,
		ExceptionBreakpointFilters:        []dap.ExceptionBreakpointsFilter{},
	}
	s.send(r)
}
