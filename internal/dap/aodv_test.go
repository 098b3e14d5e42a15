package dap

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	_ "github.com/cmc-go/cmc/examples/aodv" // registers AODVSpecBug
	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// These tests debug the routing loop of the bundled AODV model with the specification's RERR
// rule (examples/aodv, AODVSpecBug) as depth-first search finds it, in about two seconds, in
// process: 20 steps of four routers A to D, ending in "routing loop towards D: A -> C -> A" at A's
// step 20. (Breadth-first search finds the 16-step loop docs/aodv.md explains, in half a minute.)
//
//	#3 A: receive RREQ from B     A learns its first route (A.routes[Dest=B])
//	#12 B.link to C fails         B's routes via C break
//	#17 A: receive RERR from B    the stale RERR that turns A's clock for D back
//	#20 A: receive RREP from C    A routes to D via C, and C via A: the loop

var aodvLoop struct {
	once sync.Once
	t    *engine.Trace
	err  error
}

// aodvTrace checks AODVSpecBug depth first, once per test binary.
func aodvTrace(t testing.TB) *engine.Trace {
	t.Helper()
	aodvLoop.once.Do(func() {
		m, err := cmc.Build("AODVSpecBug", nil)
		if err != nil {
			aodvLoop.err = err
			return
		}
		res, err := engine.Check(context.Background(), m, engine.Options{Search: "dfs", MaxDepth: 200})
		if err != nil {
			aodvLoop.err = err
			return
		}
		if len(res.Violations) != 1 || len(res.Violations[0].Steps) != 20 || res.Violations[0].Steps[19].Proc != "A" {
			aodvLoop.err = fmt.Errorf("AODVSpecBug depth first: %d violations, want the 20-step loop these tests describe", len(res.Violations))
			return
		}
		aodvLoop.t = res.Violations[0]
	})
	if aodvLoop.err != nil {
		t.Fatal(aodvLoop.err)
	}
	return aodvLoop.t
}

// openAODV stores the loop in a new database and opens it: the session stops on the violation.
func openAODV(t *testing.T, attrs ...map[string]any) (*daptest.Client, *engine.Trace, *dap.StoppedEvent) {
	t.Helper()
	tr := aodvTrace(t)
	path := filepath.Join(t.TempDir(), "traces.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := db.AddTrace(0, tr, time.Time{})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, Config{})
	initialize(t, c)
	launch := map[string]any{"trace": id, "db": path}
	for _, a := range attrs {
		maps.Copy(launch, a)
	}
	c.LaunchRequest(launch)
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	return c, tr, daptest.ExpectStopped(t, c, "exception")
}

// cont continues and returns the stop it ends in.
func cont(t *testing.T, c *daptest.Client, reason string) *dap.StoppedEvent {
	t.Helper()
	c.ContinueRequest(1)
	daptest.Expect[*dap.ContinueResponse](t, c)
	return daptest.ExpectStopped(t, c, reason)
}

// evaluate evaluates an expression at the current stop and returns its result.
func evaluate(t *testing.T, c *daptest.Client, expr, context string) string {
	t.Helper()
	c.EvaluateRequest(expr, 0, context)
	return daptest.Expect[*dap.EvaluateResponse](t, c).Body.Result
}

// topStep is the step the top frame of the acting thread shows.
func topStep(t *testing.T, c *daptest.Client, thread int) string {
	t.Helper()
	name := stack(t, c, thread)[0].Name
	step, _, _ := strings.Cut(name, " ")
	return step
}

// receiveSite is the file and line of the routers' receive handler, where every receive step is.
func receiveSite(t *testing.T, tr *engine.Trace) engine.SourceLine {
	t.Helper()
	at, ok := engine.ParseSite(tr.Steps[2].Site)
	if !ok || tr.Steps[2].Event != "receive" {
		t.Fatalf("step 3 is %s at %s, want a receive", tr.Steps[2].Event, tr.Steps[2].Site)
	}
	return at
}

// firstChange is the first step that changes path or anything below it.
func firstChange(tr *engine.Trace, path string) int {
	for i, st := range tr.Steps {
		if changes(st.Changes, path) {
			return i + 1
		}
	}
	return 0
}

// TestConditionStopsOnlyWhenTrue: a breakpoint's condition stops only where it is true. One that
// fails to evaluate does not stop, and says so once, in the Debug Console and on the breakpoint.
// Reading past the end of a slice or into nil is nil, and a nil condition is false; len(nil) is
// 0; a name that is no component of the state is refused when the breakpoint is set.
func TestConditionStopsOnlyWhenTrue(t *testing.T) {
	c, tr, _ := openAODV(t)
	at := receiveSite(t, tr)
	gotoStep(t, c, 0)

	// 1 >> setBreakpoints on the receive handler, if A's first route's hops exceed "x": that
	// fails (a number and a string) from step 3, where A has a route. << breakpoint, output once;
	// << stopped exception at the end, not at step 3.
	c.SetBreakpointsWith(at.File, []map[string]any{{"line": at.Line, "condition": `A.routes["Dest=B"].Hops > "x"`}})
	bp := daptest.Expect[*dap.SetBreakpointsResponse](t, c).Body.Breakpoints[0]
	if !bp.Verified {
		t.Fatalf("breakpoint %+v", bp)
	}
	cont(t, c, "exception")
	failed := `breakpoint at model.go:` + fmt.Sprint(at.Line) + `: condition A.routes["Dest=B"].Hops > "x" failed at step 3: `
	if out := c.Output(); strings.Count(out, "failed at step") != 1 || !strings.Contains(out, failed) {
		t.Fatalf("output %q, want once %q", out, failed)
	}
	ev := daptest.Expect[*dap.BreakpointEvent](t, c).Body
	if ev.Reason != "changed" || ev.Breakpoint.Id != bp.Id || !ev.Breakpoint.Verified || ev.Breakpoint.Line != at.Line ||
		!strings.Contains(ev.Breakpoint.Message, "failed at step 3") {
		t.Fatalf("breakpoint event %+v", ev)
	}
	// 2 again from the start: said once per breakpoint, not once per step or per run
	gotoStep(t, c, 0)
	cont(t, c, "exception")
	if out := c.Output(); strings.Count(out, "failed at step") != 1 {
		t.Fatalf("said again: %q", out)
	}
	c.SetBreakpointsWith(at.File, nil)
	daptest.Expect[*dap.SetBreakpointsResponse](t, c)

	// 3 B's route to C via C: false, not an error, while B has no route to C
	gotoStep(t, c, 0)
	c.SetFunctionBreakpointsRequest(map[string]any{"name": "receive", "condition": `B.routes["Dest=C"].NextHop == "C"`})
	daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c)
	cont(t, c, "function breakpoint")
	if got := evaluate(t, c, `B.routes["Dest=C"].NextHop`, "watch"); got != `"C"` {
		t.Errorf("stopped where B.routes[\"Dest=C\"].NextHop is %s", got)
	}
	if out := c.Output(); strings.Count(out, "failed at step") != 1 {
		t.Fatalf("a missing route failed a condition: %q", out)
	}
	// 4 len(nil) is 0, as in Go: B.broken is nil all along; a nil condition is false
	if got := evaluate(t, c, `len(B.broken) == 0 && len(B.routes["Dest=Z"]?.Precursors) == 0`, "repl"); got != "true" {
		t.Errorf("len(nil): %s", got)
	}
	// 5 a condition that is a number fails once, where it is first evaluated (step 3)
	gotoStep(t, c, 0)
	c.SetFunctionBreakpointsRequest(map[string]any{"name": "receive", "condition": `B.seq`})
	fb := daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c).Body.Breakpoints[0]
	cont(t, c, "exception")
	if out := c.Output(); !strings.Contains(out, "function breakpoint receive: condition B.seq failed at step 3: condition \"B.seq\" is 1, not true or false") {
		t.Fatalf("output %q", out)
	}
	if ev := daptest.Expect[*dap.BreakpointEvent](t, c).Body.Breakpoint; ev.Id != fb.Id || !strings.Contains(ev.Message, "not true or false") {
		t.Fatalf("breakpoint event %+v", ev)
	}
	// 6 a name that is no component: refused when set, since the trace is known
	c.SetFunctionBreakpointsRequest(map[string]any{"name": "receive", "condition": `Bx.seq == 1`})
	if b := daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c).Body.Breakpoints[0]; b.Verified ||
		b.Message != "condition: Bx is not a component of the state; it has A, B, C, D, faults, net" {
		t.Fatalf("breakpoint %+v", b)
	}
}

// TestStopsSayWhy: the label the editor shows on the stopped thread (the stopped event's
// description) says why it stopped, the breakpoints that hit are named, and the violation's
// widget belongs to the violation's step and thread only.
func TestStopsSayWhy(t *testing.T) {
	c, tr, stop := openAODV(t)
	const violation = "invariant NoRoutingLoop: routing loop towards D: A -> C -> A"
	// 1 << stopped exception at #20, in A's thread (1)
	if b := stop.Body; b.Description != "Violation: "+violation || b.Text != violation || b.ThreadId != 1 {
		t.Fatalf("first stop %+v", b)
	}
	// 2 >> exceptionInfo for A: the violation; for C (thread 3), whose top frame is its own
	// receive at the same handler line: a quiet error
	c.ExceptionInfoRequest(1)
	if ex := daptest.Expect[*dap.ExceptionInfoResponse](t, c).Body; ex.ExceptionId+": "+ex.Description != violation {
		t.Fatalf("exceptionInfo %+v", ex)
	}
	c.ExceptionInfoRequest(3)
	if e := daptest.ExpectError(t, c, "the violation is at step 20"); e.Body.Error.ShowUser {
		t.Fatalf("a toast for %+v", e.Body.Error)
	}
	// 3 >> stepBack: << stopped step at #19 (C); A's thread no longer has the violation
	c.StepBackRequest(1)
	daptest.Expect[*dap.StepBackResponse](t, c)
	if e := daptest.ExpectStopped(t, c, "step"); e.Body.Description != "Paused on step" || e.Body.ThreadId != 3 {
		t.Fatalf("step back %+v", e.Body)
	}
	c.ExceptionInfoRequest(1)
	daptest.ExpectError(t, c, "the violation is at step 20")
	// 4 goto: where to, in the label
	if e := gotoStep(t, c, 5); e.Body.Description != "Paused on goto: step 5" {
		t.Fatalf("goto %+v", e.Body)
	}
	if e := gotoStep(t, c, 0); e.Body.Description != "Paused at the initial state" {
		t.Fatalf("goto 0 %+v", e.Body)
	}

	// 5 a data breakpoint on B's route to C: << stopped data breakpoint, "B.routes[Dest=C] changed"
	changed := firstChange(tr, "B.routes[Dest=C]")
	c.DataBreakpointInfoRequest(0, `B.routes["Dest=C"]`)
	if id := daptest.Expect[*dap.DataBreakpointInfoResponse](t, c).Body.DataId; id != "B.routes[Dest=C]" {
		t.Fatalf("dataId %v", id)
	}
	c.SetDataBreakpointsRequest("B.routes[Dest=C]")
	data := daptest.Expect[*dap.SetDataBreakpointsResponse](t, c).Body.Breakpoints[0].Id
	e := cont(t, c, "data breakpoint")
	if e.Body.Description != "Paused on data breakpoint: B.routes[Dest=C] changed" || fmt.Sprint(e.Body.HitBreakpointIds) != fmt.Sprint([]int{data}) {
		t.Fatalf("data breakpoint %+v", e.Body)
	}
	if got := topStep(t, c, e.Body.ThreadId); got != fmt.Sprintf("#%d", changed) {
		t.Fatalf("data breakpoint at %s, want #%d", got, changed)
	}
	// 6 and a function breakpoint on the same step: both hit, both named
	st := tr.Steps[changed-1]
	name := st.Proc + "." + st.Event
	gotoStep(t, c, changed-1)
	c.SetFunctionBreakpointsRequest(map[string]any{"name": name})
	fn := daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c).Body.Breakpoints[0].Id
	e = cont(t, c, "data breakpoint")
	if want := "Paused on data breakpoint: B.routes[Dest=C] changed; function breakpoint: " + name; e.Body.Description != want ||
		fmt.Sprint(e.Body.HitBreakpointIds) != fmt.Sprint([]int{data, fn}) {
		t.Fatalf("stopped %+v, want %q and hits [%d %d]", e.Body, want, data, fn)
	}
	c.SetDataBreakpointsRequest()
	daptest.Expect[*dap.SetDataBreakpointsResponse](t, c)
	c.SetFunctionBreakpointsRequest()
	daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c)

	// 7 a breakpoint on the receive handler: "Paused on breakpoint", at #3, A's first receive
	at := receiveSite(t, tr)
	gotoStep(t, c, 0)
	c.SetBreakpointsRequest(at.File, at.Line)
	line := daptest.Expect[*dap.SetBreakpointsResponse](t, c).Body.Breakpoints[0].Id
	e = cont(t, c, "breakpoint")
	if e.Body.Description != "Paused on breakpoint" || fmt.Sprint(e.Body.HitBreakpointIds) != fmt.Sprint([]int{line}) || e.Body.Text != "" {
		t.Fatalf("breakpoint %+v", e.Body)
	}
	if got := topStep(t, c, e.Body.ThreadId); got != "#3" {
		t.Fatalf("breakpoint at %s", got)
	}
	// 8 the same breakpoint at the violation's step: its own reason, and the violation in its text
	gotoStep(t, c, 19)
	e = cont(t, c, "breakpoint")
	if e.Body.Description != "Paused on breakpoint" || e.Body.Text != "violation: "+violation {
		t.Fatalf("breakpoint at the violation %+v", e.Body)
	}
}

// TestHoverShowsOnlyStatePaths: a hover shows a value only for a path to a variable of the state.
// A local of the handler code under the mouse (r, pk, err) shows nothing, quietly; a path
// through the receiver of the method the mouse is in (r.routes in func (r *Router) Receive) is
// the acting process's; the same first name anywhere else (b, r or s in the invariants) is not.
func TestHoverShowsOnlyStatePaths(t *testing.T) {
	c, _, _ := openAODV(t)
	// At #20, A in its receive handler:
	//	pk, ok := s.Air.Receive(id, s.mayFault())
	//	err := r.Receive(pk.From, pk.Msg)
	for _, word := range []string{"r", "pk", "ok", "err", "id", "s", "pk.Msg", "s.Air", "pk.From",
		"r.Receive(pk.From, pk.Msg)", "err == nil", "len(A.routes)", `A.routes["Dest=Z"]`, "A.nothing", "nil", "3"} {
		c.EvaluateRequest(word, 0, "hover")
		if e := daptest.ExpectError(t, c); e.Body.Error == nil || e.Body.Error.ShowUser {
			t.Errorf("hover %s: %+v", word, e.Body.Error)
		}
	}
	receive := aodvLine(t, "router.go", "func (r *Router) Receive(")
	for _, h := range []struct {
		expr string
		at   engine.SourceLine
		want string
	}{
		{`A.routes["Dest=D"].NextHop`, engine.SourceLine{}, "C"}, // as the Variables pane shows it
		{`r.routes["Dest=D"].NextHop`, receive, "C"},
		{`A.routes["Dest=D"].Valid`, engine.SourceLine{}, "true"},
		{`$env["net"].Pending["A->C RERR{D:1}"].Msg.Type`, engine.SourceLine{}, "RERR"},
		{`B.broken`, engine.SourceLine{}, "nil"},
	} {
		if got := hover(t, c, h.expr, h.at); got != h.want {
			t.Errorf("hover %s = %s, want %s", h.expr, got, h.want)
		}
	}
	// In the step's handler closure (model.go), r is the router its On chain registered:
	// p := m.Process(id.String(), r); p.On("receive", func() { ... }). Without a place, the
	// frame's line is that closure's.
	closure := aodvLine(t, "model.go", `p.On("receive", func() {`)
	for _, at := range []engine.SourceLine{receive, closure, {}} {
		if r := hoverAt(t, c, "r.routes", at); !strings.HasPrefix(r.Result, "len 3 {Dest=B: ") || r.VariablesReference == 0 {
			t.Errorf("hover r.routes at %s: %+v", at, r)
		}
	}
	// In the invariants b is the next hop (a local), r a loop variable and s the System: none is A;
	// nor is r in the closure of another event than the step's.
	for _, h := range []struct{ expr, line string }{
		{"b.routes", "rb := b.route(ra.Dest)"},
		{"r.routes", "for _, rt := range r.routes {"},
		{"s.Routers", "b := s.Routers[ra.NextHop]"},
		{"r.routes", `p.On("request "+dest.String(), func() {`}, // the request event's closures: not this step's handler
	} {
		file := "invariants.go"
		if strings.Contains(h.line, "p.On") {
			file = "model.go"
		}
		at := aodvLine(t, file, h.line)
		c.Send("evaluate", map[string]any{"expression": h.expr, "context": "hover",
			"source": map[string]any{"path": at.File}, "line": at.Line, "column": 5})
		if e := daptest.ExpectError(t, c); e.Body.Error == nil || e.Body.Error.ShowUser {
			t.Errorf("hover %s at %s: %+v", h.expr, at, e.Body.Error)
		}
	}
	// A watch is an expression, not a hover: a name that is not in the state is an error it shows.
	c.EvaluateRequest("pk", 0, "watch")
	if e := daptest.ExpectError(t, c, "pk is not a component of the state"); !e.Body.Error.ShowUser {
		t.Errorf("watch pk: %+v", e.Body.Error)
	}
}

// hover is the value a hover shows, with the mouse at at (none when at.File is "").
func hover(t *testing.T, c *daptest.Client, expr string, at engine.SourceLine) string {
	t.Helper()
	return hoverAt(t, c, expr, at).Result
}

func hoverAt(t *testing.T, c *daptest.Client, expr string, at engine.SourceLine) dap.EvaluateResponseBody {
	t.Helper()
	args := map[string]any{"expression": expr, "context": "hover"}
	if at.File != "" {
		args["source"], args["line"], args["column"] = map[string]any{"path": at.File}, at.Line, 5
	}
	c.Send("evaluate", args)
	return daptest.Expect[*dap.EvaluateResponse](t, c).Body
}

// aodvLine is the line of examples/aodv/file that holds text.
func aodvLine(t *testing.T, file, text string) engine.SourceLine {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "examples", "aodv", file))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			return engine.SourceLine{File: path, Line: i + 2} // the line after: inside the body
		}
	}
	t.Fatalf("%s has no line with %q", file, text)
	return engine.SourceLine{}
}

// TestDocExamples: every example of docs/launch.md's table and of :help works on the AODV
// model's routing loop: expressions evaluate at its start (where nothing has happened yet) and
// at the violation, hovers show a value at the violation, breakpoints are verified, and a log
// message prints without an error in it.
func TestDocExamples(t *testing.T) {
	c, tr, _ := openAODV(t)
	at := receiveSite(t, tr)
	examples := docExamples(t)
	c.EvaluateRequest(":help", 0, "repl")
	help := daptest.Expect[*dap.EvaluateResponse](t, c).Body.Result
	_, list, ok := strings.Cut(help, "For example")
	if !ok {
		t.Fatalf(":help has no examples:\n%s", help)
	}
	for _, l := range strings.Split(list, "\n")[1:] {
		examples["Debug Console"] = append(examples["Debug Console"], strings.TrimSpace(l))
	}
	for _, kind := range []string{"condition", "watch", "Debug Console", "hover", "function breakpoint",
		"hit condition", "log message", "data breakpoint"} {
		if len(examples[kind]) == 0 {
			t.Errorf("no %s examples", kind)
		}
	}
	for _, step := range []int{0, len(tr.Steps)} {
		c.Send("cmc/gotoStep", map[string]any{"step": step})
		daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
		daptest.Expect[*dap.StoppedEvent](t, c)
		for kind, context := range map[string]string{"condition": "watch", "watch": "watch", "Debug Console": "repl"} {
			for _, x := range examples[kind] {
				c.EvaluateRequest(x, 0, context)
				m, err := c.Read()
				if err != nil {
					t.Fatal(err)
				}
				r, ok := m.(*dap.EvaluateResponse)
				if !ok {
					t.Errorf("%s %s at step %d:%s", kind, x, step, describeMsg(m))
					continue
				}
				if got := r.Body.Result; kind == "condition" && got != "true" && got != "false" && got != "nil" {
					t.Errorf("condition %s at step %d is %s", x, step, got)
				}
			}
		}
	}
	// at the violation (A acts), hovers, over A's receive method
	receive := aodvLine(t, "router.go", "func (r *Router) Receive(")
	for _, x := range examples["hover"] {
		c.Send("evaluate", map[string]any{"expression": x, "context": "hover",
			"source": map[string]any{"path": receive.File}, "line": receive.Line, "column": 5})
		if m, err := c.Read(); err != nil {
			t.Fatal(err)
		} else if _, ok := m.(*dap.EvaluateResponse); !ok {
			t.Errorf("hover %s:%s", x, describeMsg(m))
		}
	}
	// breakpoints, set on the trace
	set := func(kind string, bps ...map[string]any) {
		t.Helper()
		c.SetFunctionBreakpointsRequest(bps...)
		for i, b := range daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c).Body.Breakpoints {
			if !b.Verified {
				t.Errorf("%s %v: %s", kind, bps[i], b.Message)
			}
		}
	}
	for _, x := range examples["condition"] {
		set("condition", map[string]any{"name": "receive", "condition": x})
	}
	for _, x := range examples["function breakpoint"] {
		set("function breakpoint", map[string]any{"name": x})
	}
	for _, x := range examples["hit condition"] {
		set("hit condition", map[string]any{"name": "receive", "hitCondition": x})
	}
	set("no breakpoint")
	for _, x := range examples["data breakpoint"] {
		c.DataBreakpointInfoRequest(0, x)
		id, _ := daptest.Expect[*dap.DataBreakpointInfoResponse](t, c).Body.DataId.(string)
		if exprPath(id) != x { // the data id is the state path the expression names
			t.Errorf("data breakpoint %s: dataId %v", x, id)
		}
		c.SetDataBreakpointsRequest(id)
		if b := daptest.Expect[*dap.SetDataBreakpointsResponse](t, c).Body.Breakpoints[0]; !b.Verified {
			t.Errorf("data breakpoint %s: %s", x, b.Message)
		}
	}
	c.SetDataBreakpointsRequest()
	daptest.Expect[*dap.SetDataBreakpointsResponse](t, c)
	for _, x := range examples["log message"] {
		c.SetBreakpointsWith(at.File, []map[string]any{{"line": at.Line, "logMessage": x}})
		daptest.Expect[*dap.SetBreakpointsResponse](t, c)
		gotoStep(t, c, len(tr.Steps)-1)
		before := len(c.Output())
		cont(t, c, "exception")
		if out := c.Output()[before:]; out == "" || strings.ContainsAny(out, "<>{}") {
			t.Errorf("log message %s printed %q", x, out)
		}
	}
}

// docExamples reads the examples table of docs/launch.md: code spans by the kinds of place they
// are written in.
func docExamples(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "launch.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "| where | examples | what they say |")
	if !ok {
		t.Fatal("docs/launch.md has no examples table")
	}
	out := map[string][]string{}
	code := regexp.MustCompile("`([^`]+)`")
	for _, row := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(row, " | ")
		if !strings.HasPrefix(row, "| ") || len(cells) < 3 {
			break
		}
		for _, kind := range strings.Split(strings.TrimPrefix(cells[0], "| "), ", ") {
			for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
				out[kind] = append(out[kind], m[1])
			}
		}
	}
	return out
}

func describeMsg(m dap.Message) string {
	if e, ok := m.(*dap.ErrorResponse); ok {
		return " error " + e.Message
	}
	return fmt.Sprintf(" %T", m)
}
