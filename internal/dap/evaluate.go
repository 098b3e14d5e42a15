package dap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/engine"

	"github.com/google/go-dap"
)

// Evaluate serves watches and the debug console with the same expression language as breakpoint
// conditions, over the state a frame shows, and hovers with state paths only (hover.go). In the
// console a few commands also work: :goto N, :bookmark NAME [note], :help.

func (s *Session) onEvaluate(req *dap.EvaluateRequest) {
	a := req.Arguments
	if a.Context == "repl" && strings.HasPrefix(strings.TrimSpace(a.Expression), ":") {
		s.command(req)
		return
	}
	if a.Context == "hover" {
		s.onHover(&hoverRequest{EvaluateRequest: req})
		return
	}
	if !s.requireStop(&req.Request) {
		return
	}
	p, ok := s.framePos(a.FrameId)
	if !ok {
		p = s.pos
	}
	e, err := s.envAt(p.Shown())
	if err != nil {
		s.sendError(&req.Request, errStore, "evaluate: "+err.Error())
		return
	}
	v, err := s.progs.eval(a.Expression, e)
	if err != nil {
		s.sendError(&req.Request, errEvaluate, firstLine(err.Error()))
		return
	}
	if n := e.nodeOf(v); n != nil {
		s.sendNode(req, p, n)
		return
	}
	r := &dap.EvaluateResponse{Response: response(&req.Request)}
	r.Body.Result = show(v)
	s.send(r)
}

// sendNode answers an evaluate request with a variable of the state: a leaf as the Variables
// pane shows it, a composite folded, to be expanded.
func (s *Session) sendNode(req *dap.EvaluateRequest, p engine.Cursor, n *node) {
	r := &dap.EvaluateResponse{Response: response(&req.Request)}
	if n.leaf {
		r.Body.Result = n.value
		s.send(r)
		return
	}
	r.Body.Result = n.summary(summaryWidth * 2)
	r.Body.VariablesReference = s.handles.add(handle{kind: hNode, pos: p, node: n})
	if n.indexed {
		r.Body.IndexedVariables = len(n.kids)
	}
	s.send(r)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// helpText is :help's answer. Its examples are expressions over the bundled AODV model's state
// (examples/aodv): TestDocExamples evaluates each on its routing loop.
const helpText = `:goto N — go to step N (0: the initial state)
:bookmark NAME [note] — bookmark the current state
:help — this list
Anything else is an expression over the state shown (https://expr-lang.org): components are
variables, fields are members, elements and map entries are indexed, a set's or keyed slice's
elements by their quoted names (as Copy as Expression gives them). A field of nil, an element
past the end and a missing entry are nil; len(nil) is 0; < and > with nil are false.
For example, on the AODV model (examples/aodv):
  A.routes["Dest=D"].NextHop == "C"
  len(net.Pending) > 1
  any(B.routes, .Dest == "D" && .Valid)
  A.routes["Dest=D"]?.Hops > 2
  filter(net.Pending, .Msg.Type == "RERR")`

// command runs a debug console command.
func (s *Session) command(req *dap.EvaluateRequest) {
	fields := strings.Fields(strings.TrimSpace(req.Arguments.Expression))
	reply := func(text string) {
		r := &dap.EvaluateResponse{Response: response(&req.Request)}
		r.Body.Result = text
		s.send(r)
	}
	fail := func(msg string) { s.sendError(&req.Request, errEvaluate, msg) }
	switch fields[0] {
	case ":help":
		reply(helpText)
	case ":goto":
		if !s.requireStop(&req.Request) {
			return
		}
		n, err := strconv.Atoi(strings.Join(fields[1:], ""))
		if err != nil {
			fail(":goto: give a step number, e.g. :goto 12")
			return
		}
		if s.tr != nil && (n < 0 || n > s.tr.len()) {
			fail(fmt.Sprintf(":goto: step %d is not in the trace: it has steps 0 to %d", n, s.tr.len()))
			return
		}
		reply(fmt.Sprintf("step %d", n))
		s.gotoStep(n)
	case ":bookmark":
		if !s.requireStop(&req.Request) {
			return
		}
		if len(fields) < 2 {
			fail(":bookmark: give a name, e.g. :bookmark before-rerr")
			return
		}
		b, err := s.addBookmark(fields[1], strings.Join(fields[2:], " "))
		if err != nil {
			fail(":bookmark: " + err.Error())
			return
		}
		reply(fmt.Sprintf("bookmarked step %d of trace %d as %s", b.Step, b.Trace, b.Name))
	default:
		fail(fmt.Sprintf("unknown command %s; :help lists them", fields[0]))
	}
}

// exceptionInfo describes the trace's violation, and only to the thread stopped at its step:
// a client keeps an exception stop's reason on a thread after later stops elsewhere, and would
// show the violation's widget on whatever frame that thread shows then (often another step of
// the same handler, on the same line). Anywhere else the answer is a quiet error.
func (s *Session) onExceptionInfo(req *dap.ExceptionInfoRequest) {
	if s.tr == nil || s.tr.t.Violation == nil {
		s.sendQuietError(&req.Request, errNotStopped, "exceptionInfo: this trace has no violation")
		return
	}
	end := s.tr.t.End()
	if !s.stopped || s.pos != end || req.Arguments.ThreadId != s.tr.threadOf(end) {
		s.sendQuietError(&req.Request, errNotStopped, fmt.Sprintf("exceptionInfo: the violation is at step %d, in thread %d; thread %d is not stopped there",
			end.Step, s.tr.threadOf(end), req.Arguments.ThreadId))
		return
	}
	v := s.tr.t.Violation
	r := &dap.ExceptionInfoResponse{Response: response(&req.Request)}
	r.Body = dap.ExceptionInfoResponseBody{
		// The editor's widget reads "Exception has occurred: <id>" over the description: the id
		// names the violation ("invariant NoRoutingLoop"), the description says what broke.
		ExceptionId: strings.TrimSpace(v.Kind + " " + v.Name),
		Description: v.Message,
		BreakMode:   "always",
		Details: &dap.ExceptionDetails{
			Message:  v.Message,
			TypeName: strings.TrimSpace(v.Kind + " " + v.Name),
		},
	}
	if v.Site != "" {
		r.Body.Details.StackTrace = "at " + s.siteText(v.Site)
	}
	s.send(r)
}
