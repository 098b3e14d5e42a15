package dap

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/tracefmt"
	"github.com/google/go-dap"
)

// Threads are the model's processes; the one that acts in the current step is the stopped one.
// The stack is the trace: one frame per step, newest on top, so the Call Stack pane is a
// timeline that can be clicked. The acting thread shows the whole trace; every other thread
// shows only its own steps.

// Frame ids encode the engine.Cursor they show: 2*step+1 after a step, 2*step+2 inside it (the top
// frame, at the current Choose).
func frameID(p engine.Cursor) int {
	if p.Inside() {
		return 2*p.Step + 2
	}
	return 2*p.Step + 1
}

// framePos decodes a frame id; 0 is the current engine.Cursor.
func (s *Session) framePos(id int) (engine.Cursor, bool) {
	switch {
	case id == 0:
		return s.pos, true
	case id < 0 || (id-1)/2 > s.tr.len():
		return engine.Cursor{}, false
	case id%2 == 0:
		step := (id - 2) / 2
		if s.pos.Inside() && s.pos.Step == step {
			return s.pos, true
		}
		return engine.Cursor{}, false
	}
	return engine.After((id - 1) / 2), true
}

func (s *Session) onThreads(req *dap.ThreadsRequest) {
	r := &dap.ThreadsResponse{Response: response(&req.Request)}
	if s.tr == nil {
		// Before a trace exists (building, checking) clients still ask.
		r.Body.Threads = []dap.Thread{{Id: 1, Name: "cmc"}}
	} else {
		for i, p := range s.tr.procs {
			r.Body.Threads = append(r.Body.Threads, dap.Thread{Id: i + 1, Name: p})
		}
		if len(r.Body.Threads) == 0 {
			r.Body.Threads = []dap.Thread{{Id: 1, Name: s.tr.t.Model}}
		}
	}
	s.send(r)
}

func (s *Session) onStackTrace(req *dap.StackTraceRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	a := req.Arguments
	var total int
	var at func(i int) engine.Cursor // the i-th frame from the top
	if a.ThreadId == s.tr.threadOf(s.pos) || a.ThreadId > len(s.tr.procs) {
		total = s.pos.Step + 1
		at = func(i int) engine.Cursor {
			if i == 0 {
				return s.pos
			}
			return engine.After(s.pos.Step - i)
		}
	} else {
		steps := s.tr.procSteps[s.tr.procs[a.ThreadId-1]]
		n := sort.SearchInts(steps, s.pos.Step+1) // its steps up to the current one
		total = n + 1
		at = func(i int) engine.Cursor {
			if i == n {
				return engine.After(0)
			}
			return engine.After(steps[n-1-i])
		}
	}
	start := min(max(a.StartFrame, 0), total)
	levels := a.Levels
	if levels <= 0 {
		levels = maxFrames // all, as far as one message may hold; the client pages on
	}
	end := min(start+levels, total)
	r := &dap.StackTraceResponse{Response: response(&req.Request)}
	r.Body.StackFrames = make([]dap.StackFrame, 0, end-start)
	for i := start; i < end; i++ {
		r.Body.StackFrames = append(r.Body.StackFrames, s.frame(at(i)))
	}
	r.Body.TotalFrames = total
	s.send(r)
}

// maxFrames bounds one stackTrace response: a 100,000-step trace in one message would pass go-dap's
// 4 MiB limit.
const maxFrames = 2000

// frame describes the frame of a engine.Cursor: the step's name and its handler's line, or the
// Choose call's line inside it.
func (s *Session) frame(p engine.Cursor) dap.StackFrame {
	f := dap.StackFrame{Id: frameID(p)}
	if p.Step == 0 {
		f.Name = "#0 initial state"
		f.PresentationHint = "label"
		return f
	}
	st := s.tr.step(p.Step)
	f.Name = stepName(p.Step, st)
	site := st.Site
	if c := s.tr.t.Call(p); c != nil {
		site = c.Site
		f.Name += fmt.Sprintf(" › Choose(%d) = %d", c.N, c.Value)
		if c.Label != "" {
			f.Name += ": " + c.Label
		}
	}
	if at, ok := s.sourceLine(site); ok {
		f.Source = &dap.Source{Name: filepath.Base(at.File), Path: at.File}
		f.Line, f.Column = at.Line, 1
	}
	f.CanRestart = true
	return f
}

// stepName names a step as the Call Stack shows it: "#17 B: receive RERR from C" when the step
// delivered a message, else "#17 B.timeout D".
func stepName(n int, st *engine.Step) string {
	for _, note := range st.Notes {
		if note.Kind == "deliver" {
			return fmt.Sprintf("#%d %s: receive %s from %s", n, st.Proc, msgHead(note.Msg), note.From)
		}
	}
	return fmt.Sprintf("#%d %s.%s", n, st.Proc, st.Event)
}

// msgHead is a message's kind: the text before its first brace, parenthesis or space, or the
// first field's value of a struct printed with %+v.
func msgHead(msg string) string {
	msg = strings.TrimPrefix(msg, "{")
	if i := strings.IndexAny(msg, "{( }"); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.IndexByte(msg, ':'); i >= 0 {
		msg = msg[i+1:]
	}
	if len(msg) > 24 {
		msg = msg[:24] + "…"
	}
	return msg
}

// Scopes of a frame: the processes' state, the environment (network, timers), the step's Choose
// values, what it changed, the messages it sent and received, and the conversations with real
// peers so far (connections.go).
func (s *Session) onScopes(req *dap.ScopesRequest) {
	if !s.requireStop(&req.Request) {
		return
	}
	p, ok := s.framePos(req.Arguments.FrameId)
	if !ok {
		s.sendError(&req.Request, errBadArgs, fmt.Sprintf("scopes: frame %d is not on the stack now", req.Arguments.FrameId))
		return
	}
	st, err := s.stateAt(p.Shown())
	if err != nil {
		s.sendError(&req.Request, errStore, "scopes: "+err.Error())
		return
	}
	r := &dap.ScopesResponse{Response: response(&req.Request)}
	add := func(name, hint string, h handle, n int) {
		r.Body.Scopes = append(r.Body.Scopes, dap.Scope{Name: name, PresentationHint: hint,
			VariablesReference: s.handles.add(h), NamedVariables: n})
	}
	add("State", "locals", handle{kind: hNode, pos: p, node: subset(st.tree, s.tr.procs)}, len(s.tr.procs))
	specs := tracefmt.Specs(s.tr.t) // shown in their own scope, not as part of the network
	if envs := slices.DeleteFunc(slices.Clone(s.tr.envs), func(e string) bool { return slices.Contains(specs, e) }); len(envs) > 0 {
		add("Network", "registers", handle{kind: hNode, pos: p, node: subset(st.tree, envs)}, len(envs))
	}
	if len(specs) > 0 {
		add("Specification", "", handle{kind: hSpec, pos: p, node: subset(st.tree, specs)}, len(specs))
	}
	if p.Step > 0 {
		step := s.tr.step(p.Step)
		add("Choices", "arguments", handle{kind: hChoices, pos: p}, len(s.choiceVars(p)))
		if !p.Inside() {
			cs, err := s.shownChanges(p.Step)
			if err != nil {
				s.sendError(&req.Request, errStore, "scopes: "+err.Error())
				return
			}
			add("Changes", "", handle{kind: hChanges, pos: p}, len(cs))
			if len(step.Notes) > 0 {
				add("Messages", "", handle{kind: hNotes, pos: p}, len(step.Notes))
			}
		}
	}
	if cs := s.conversationsAt(p); len(cs) > 0 {
		add("Connections", "", handle{kind: hConns, pos: p}, len(cs))
	}
	s.send(r)
}

// subset is a node holding the named roots of a state tree.
func subset(top *node, names []string) *node {
	n := &node{}
	for _, name := range names {
		if c := top.byName[name]; c != nil {
			n.kids = append(n.kids, c)
		}
	}
	return n
}

// requireStop answers req with an error unless the session is stopped on a trace.
func (s *Session) requireStop(req *dap.Request) bool {
	if s.tr != nil && s.stopped {
		return true
	}
	msg := req.Command + ": not stopped on a trace"
	if s.check != nil {
		msg += " (the check is still running)"
	}
	s.sendError(req, errNotStopped, msg)
	return false
}
