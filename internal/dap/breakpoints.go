package dap

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-dap"
)

// Breakpoints stop continue and reverseContinue (scan.go):
//   - source breakpoints on a handler's line stop after each step that runs it; on a Choose
//     call's line, inside the step at that call;
//   - function breakpoints match the event (receive), process and event (B.receive), or a glob
//     of those (B.*, *.timeout D);
//   - data breakpoints on a state variable (its path) stop after each step that changed it or
//     anything below it.
//
// All take a condition (an expression over the state shown at the stop), a hit condition
// (N, >N, >=N, <N, <=N, ==N, %N) and, for source and function breakpoints, a log message
// ({expression} parts are evaluated) that prints instead of stopping.

type bp struct {
	id         int
	cond       string
	hitCond    string
	logMsg     string
	hits       int
	verified   bool
	message    string
	condFailed bool // its condition failed to evaluate, and the user was told (scan.go)
}

type sourceBP struct {
	bp
	path  string // as the client names the file
	line  int
	site  string // file:line as the trace records it, once verified on a site
	steps []int  // the steps that run the line, once verified off the sites (lines.go)
}

type funcBP struct {
	bp
	name string
}

type dataBP struct {
	bp
	path string
}

type breakpoints struct {
	nextID int
	source map[string][]*sourceBP // by the client's path
	bySite map[string][]*sourceBP // verified ones, by recorded site
	code   []*sourceBP            // verified ones off the sites, on lines that steps run
	funcs  []*funcBP
	data   []*dataBP
}

func (b *breakpoints) init() {
	b.source = map[string][]*sourceBP{}
	b.bySite = map[string][]*sourceBP{}
}

func (b *breakpoints) id() int { b.nextID++; return b.nextID }

func (s *Session) onSetBreakpoints(req *dap.SetBreakpointsRequest) {
	a := req.Arguments
	p := a.Source.Path
	delete(s.bps.source, p)
	if s.files.saw(p) && s.tr != nil {
		s.bps.verify(s) // a path the editor names may be where another breakpoint's recorded file is
	}
	var list []*sourceBP
	for _, sb := range a.Breakpoints {
		list = append(list, &sourceBP{bp: bp{id: s.bps.id(), cond: sb.Condition, hitCond: sb.HitCondition, logMsg: sb.LogMessage},
			path: p, line: sb.Line})
	}
	s.bps.source[p] = list
	r := &dap.SetBreakpointsResponse{Response: response(&req.Request)}
	r.Body.Breakpoints = []dap.Breakpoint{}
	for _, b := range list {
		s.verifySource(b)
		r.Body.Breakpoints = append(r.Body.Breakpoints, b.dap())
	}
	s.bps.index()
	s.send(r)
	s.scanLines()
}

func (b *sourceBP) dap() dap.Breakpoint {
	return dap.Breakpoint{Id: b.id, Verified: b.verified, Message: b.message, Line: b.line,
		Source: &dap.Source{Path: b.path}}
}

// label names the breakpoint in the Debug Console.
func (b *sourceBP) label() string {
	return "breakpoint at " + filepath.Base(b.path) + ":" + strconv.Itoa(b.line)
}

func (b *funcBP) dap() dap.Breakpoint {
	return dap.Breakpoint{Id: b.id, Verified: b.verified, Message: b.message}
}

func (b *dataBP) dap() dap.Breakpoint {
	return dap.Breakpoint{Id: b.id, Verified: b.verified, Message: b.message}
}

// verifySource checks a source breakpoint against the loaded trace.
func (s *Session) verifySource(b *sourceBP) {
	b.verified, b.site = false, ""
	switch {
	case s.tr == nil:
		b.message = "pending: checked against the trace when it is loaded"
	case s.siteKind(b.path, b.line) == 0:
		s.verifyCodeLine(b)
		return // its condition is Go, for Delve
	default:
		b.verified, b.message = true, ""
		b.site = s.recordedFile(b.path) + ":" + strconv.Itoa(b.line)
	}
	if err := s.checkConditions(&b.bp); err != nil {
		b.verified, b.message = false, err.Error()
	}
}

// index rebuilds the by-site index of verified source breakpoints.
func (b *breakpoints) index() {
	b.bySite, b.code = map[string][]*sourceBP{}, nil
	for _, list := range b.source {
		for _, sb := range list {
			switch {
			case sb.verified && sb.steps != nil:
				b.code = append(b.code, sb)
			case sb.verified:
				b.bySite[sb.site] = append(b.bySite[sb.site], sb)
			}
		}
	}
	slices.SortFunc(b.code, func(x, y *sourceBP) int { return x.id - y.id }) // b.source is a map
}

func (s *Session) onSetFunctionBreakpoints(req *dap.SetFunctionBreakpointsRequest) {
	s.bps.funcs = nil
	r := &dap.SetFunctionBreakpointsResponse{Response: response(&req.Request)}
	r.Body.Breakpoints = []dap.Breakpoint{}
	for _, fb := range req.Arguments.Breakpoints {
		b := &funcBP{bp: bp{id: s.bps.id(), cond: fb.Condition, hitCond: fb.HitCondition}, name: fb.Name}
		s.verifyFunc(b)
		s.bps.funcs = append(s.bps.funcs, b)
		r.Body.Breakpoints = append(r.Body.Breakpoints, b.dap())
	}
	s.send(r)
}

func (s *Session) verifyFunc(b *funcBP) {
	b.verified, b.message = true, ""
	if _, err := path.Match(b.name, ""); err != nil {
		b.verified, b.message = false, fmt.Sprintf("bad pattern %q: %v", b.name, err)
		return
	}
	if s.tr != nil {
		found := false
		for i := 1; i <= s.tr.len() && !found; i++ {
			found = b.matches(s.tr.step(i).Proc, s.tr.step(i).Event)
		}
		if !found {
			b.verified, b.message = false, "no step of this trace runs "+b.name+"; name an event (receive), a process's event (B.receive) or a pattern (B.*)"
		}
	}
	if err := s.checkConditions(&b.bp); err != nil {
		b.verified, b.message = false, err.Error()
	}
}

func (b *funcBP) matches(proc, ev string) bool {
	for _, name := range []string{ev, proc + "." + ev, proc} {
		if ok, _ := path.Match(b.name, name); ok {
			return true
		}
	}
	return false
}

// dataBreakpointInfo names a state variable by its path; it may be any node of the state tree
// (a whole route entry, a field), or a path of the Changes scope.
func (s *Session) onDataBreakpointInfo(req *dap.DataBreakpointInfoRequest) {
	a := req.Arguments
	r := &dap.DataBreakpointInfoResponse{Response: response(&req.Request)}
	p, why := s.dataPath(a.VariablesReference, a.Name)
	if p == "" {
		r.Body.DataId = nil
		r.Body.Description = why
	} else {
		r.Body.DataId = p
		r.Body.Description = "when " + p + " changes"
		r.Body.AccessTypes = []dap.DataBreakpointAccessType{"write"}
		r.Body.CanPersist = true // paths name the same variable in every trace of the model
	}
	s.send(r)
}

// quotedKeys finds elements written as in an expression (["D"]), which a path writes [D].
var quotedKeys = regexp.MustCompile(`\["(?:[^"\\]|\\.)*"\]`)

// dataPath finds the state path a variable names, or says why there is none.
func (s *Session) dataPath(ref int, name string) (string, string) {
	if ref == 0 {
		if s.tr == nil || !s.stopped {
			return "", "not stopped on a trace"
		}
		st, err := s.stateAt(s.pos.Shown())
		if err != nil {
			return "", err.Error()
		}
		if n := st.tree.find(name); n != nil {
			return n.path, ""
		}
		// A variable that does not exist yet can be watched for appearing.
		if segs := parsePath(name); st.tree.byName[segs[0].name] != nil && len(segs) > 1 {
			return quotedKeys.ReplaceAllStringFunc(name, func(k string) string {
				if u := unquoteKey(k); u != "" {
					return u
				}
				return k
			}), ""
		}
		return "", name + " is not a path of the state"
	}
	h, ok := s.handles.get(ref)
	if !ok {
		return "", "the variable is gone (references last until the next stop)"
	}
	switch h.kind {
	case hNode:
		for _, c := range h.node.kids {
			if c.name == name {
				return c.path, ""
			}
		}
		return "", name + " is not a child of " + h.node.path
	case hChanges:
		return name, ""
	}
	return "", "only state variables can have data breakpoints"
}

func (s *Session) onSetDataBreakpoints(req *dap.SetDataBreakpointsRequest) {
	s.bps.data = nil
	r := &dap.SetDataBreakpointsResponse{Response: response(&req.Request)}
	r.Body.Breakpoints = []dap.Breakpoint{}
	for _, db := range req.Arguments.Breakpoints {
		b := &dataBP{bp: bp{id: s.bps.id(), cond: db.Condition, hitCond: db.HitCondition, verified: true}, path: db.DataId}
		if b.path == "" {
			b.verified, b.message = false, "no variable given"
		} else if err := s.checkConditions(&b.bp); err != nil {
			b.verified, b.message = false, err.Error()
		}
		s.bps.data = append(s.bps.data, b)
		r.Body.Breakpoints = append(r.Body.Breakpoints, b.dap())
	}
	s.send(r)
}

// checkConditions compiles a breakpoint's condition and checks its hit condition, so mistakes
// show when the breakpoint is set, not when it is reached: with a trace loaded, a name that is
// not a component of its state is one.
func (s *Session) checkConditions(b *bp) error {
	b.condFailed = false
	if b.cond != "" {
		prog, err := s.progs.compile(b.cond)
		if err != nil {
			return fmt.Errorf("condition: %v", firstLine(err.Error()))
		}
		if s.tr != nil {
			if err := prog.checkNames(s.tr.components()); err != nil {
				return fmt.Errorf("condition: %v", err)
			}
		}
	}
	if b.hitCond != "" {
		if _, err := hitMatches(b.hitCond, 1); err != nil {
			return err
		}
	}
	return nil
}

// hitMatches says whether the hits-th hit satisfies a hit condition.
func hitMatches(cond string, hits int) (bool, error) {
	c := strings.TrimSpace(cond)
	op := strings.TrimRight(c, "0123456789 ")
	n, err := strconv.Atoi(strings.TrimSpace(c[len(op):]))
	if err != nil || n < 0 {
		return false, fmt.Errorf("hit condition %q: want a count such as 3, >3, >=3, <3, ==3 or %%3", cond)
	}
	switch strings.TrimSpace(op) {
	case "", "==", "=":
		return hits == n, nil
	case ">":
		return hits > n, nil
	case ">=":
		return hits >= n, nil
	case "<":
		return hits < n, nil
	case "<=":
		return hits <= n, nil
	case "%":
		return n > 0 && hits%n == 0, nil
	}
	return false, fmt.Errorf("hit condition %q: want a count such as 3, >3, >=3, <3, ==3 or %%3", cond)
}

// verify re-checks source and function breakpoints against a newly loaded trace, and tells the
// client about those that changed.
func (b *breakpoints) verify(s *Session) {
	for _, list := range b.source {
		for _, sb := range list {
			was, msg := sb.verified, sb.message
			s.verifySource(sb)
			if was != sb.verified || msg != sb.message {
				s.send(&dap.BreakpointEvent{Event: event("breakpoint"), Body: dap.BreakpointEventBody{Reason: "changed", Breakpoint: sb.dap()}})
			}
		}
	}
	b.index()
	s.scanLines()
	for _, fb := range b.funcs {
		was, msg := fb.verified, fb.message
		s.verifyFunc(fb)
		if was != fb.verified || msg != fb.message {
			s.send(&dap.BreakpointEvent{Event: event("breakpoint"), Body: dap.BreakpointEventBody{Reason: "changed", Breakpoint: fb.dap()}})
		}
	}
}
