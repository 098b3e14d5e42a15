package dap

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/google/go-dap"
)

// TestPanicInHandler: a panic while handling a request is an error response, and the session
// goes on (recoverPanic).
func TestPanicInHandler(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	id := storeTrace(t, db)
	cfg := Config{beforeRequest: func(m dap.Message) {
		if _, ok := m.(*dap.ScopesRequest); ok {
			panic("injected")
		}
	}}
	c := start(t, cfg)
	initialize(t, c)
	c.LaunchRequest(map[string]any{"trace": id, "db": db})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// >> scopes, << error: internal error in scopes: injected
	c.ScopesRequest(9)
	daptest.ExpectError(t, c, "internal error in scopes: injected", "the session goes on")
	// >> stackTrace, << stackTrace: still alive
	if n := len(stack(t, c, 2)); n != 5 {
		t.Fatalf("%d frames", n)
	}
}

// TestBadRequests: unknown commands, malformed arguments and requests out of turn are errors,
// and the stream stays in sync.
func TestBadRequests(t *testing.T) {
	c := start(t, Config{})
	initialize(t, c)
	// >> fooBar, << error
	c.Send("fooBar", nil)
	daptest.ExpectError(t, c, `cmcdap does not support the "fooBar" request`)
	// >> setBreakpoints with a line that is a string, << error
	c.Send("setBreakpoints", map[string]any{"source": map[string]any{"path": "/x.go"}, "breakpoints": []any{map[string]any{"line": "ten"}}})
	daptest.ExpectError(t, c, "cannot unmarshal")
	// >> next before launch, << error
	c.NextRequest(1)
	daptest.ExpectError(t, c, "next: not stopped on a trace")
	// >> cmc/gotoStep before launch, << error
	c.Send("cmc/gotoStep", map[string]any{"step": 1})
	daptest.ExpectError(t, c, "cmc/gotoStep: not stopped on a trace")
	// >> variables with a reference that never existed, << error
	c.VariablesRequest(42)
	daptest.ExpectError(t, c, "reference 42 is not valid now")
	// >> attach, << error that says to launch
	c.Send("attach", map[string]any{})
	daptest.ExpectError(t, c, `use "request": "launch"`)
	// >> threads, << threads: a placeholder before any trace
	c.ThreadsRequest()
	daptest.Expect[*dap.ThreadsResponse](t, c)
}

// TestTraceRequests: stepping, scopes, paging and custom requests on a stored trace, with
// arguments at and past the edges.
func TestTraceRequests(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	id := storeTrace(t, db)
	c := start(t, Config{})
	initialize(t, c)
	c.LaunchRequest(map[string]any{"trace": id, "db": db, "stopOnEntry": true})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "entry")
	// stepBack at the start stays there
	c.StepBackRequest(1)
	daptest.Expect[*dap.StepBackResponse](t, c)
	daptest.ExpectStopped(t, c, "entry")
	// gotoStep out of range
	c.Send("cmc/gotoStep", map[string]any{"step": 9})
	daptest.ExpectError(t, c, "step 9 is not in the trace: it has steps 0 to 4")
	// next twice: #2, where net.Pending has one message: a set, so named by value, not indexed
	for range 2 {
		c.NextRequest(1)
		daptest.Expect[*dap.NextResponse](t, c)
		daptest.ExpectStopped(t, c, "step")
	}
	frames := stack(t, c, 2)
	scopes := scopeRefs(t, c, frames[0].Id)
	pending := vars(t, c, scopes["Network"])["net"]
	pendingRef := vars(t, c, pending.VariablesReference)["Pending"]
	if pendingRef.IndexedVariables != 0 || !strings.HasPrefix(pendingRef.Value, "len 1 ") {
		t.Fatalf("net.Pending %+v", pendingRef)
	}
	c.VariablesPage(pendingRef.VariablesReference, "", 0, 1)
	if v := daptest.Expect[*dap.VariablesResponse](t, c).Body.Variables; len(v) != 1 || v[0].Name != "[{1 2 AD{A seq 1 hops 1}}]" {
		t.Fatalf("page %+v", v)
	}
	c.VariablesPage(pendingRef.VariablesReference, "", 5, 10)
	if v := daptest.Expect[*dap.VariablesResponse](t, c).Body.Variables; len(v) != 0 {
		t.Fatalf("page past the end %+v", v)
	}
	// the messages of the step
	if m := vars(t, c, scopes["Messages"]); !strings.Contains(m["#0 deliver"].Value, "A → B: AD{A seq 1 hops 0}") {
		t.Fatalf("messages %+v", m)
	}
	// scopes of an older frame: #1's choices
	if ch := vars(t, c, scopeRefs(t, c, frames[1].Id)["Choices"]); len(ch) != 1 {
		t.Fatalf("choices of #1: %+v", ch)
	}
	// the variable references of an earlier stop are gone after the next stop
	c.NextRequest(2)
	daptest.Expect[*dap.NextResponse](t, c)
	daptest.ExpectStopped(t, c, "step")
	c.VariablesRequest(scopes["State"])
	daptest.ExpectError(t, c, "is not valid now")
	// restartFrame on #2's frame: back to just before #2
	frames = stack(t, c, 3)
	c.Send("restartFrame", map[string]any{"frameId": frames[1].Id})
	daptest.Expect[*dap.RestartFrameResponse](t, c)
	daptest.ExpectStopped(t, c, "restart")
	if top := stack(t, c, 1)[0]; top.Name != "#1 A.announce" {
		t.Fatalf("after restartFrame: %s", top.Name)
	}
	// gotoTargets for the receive handler's line: #2, #3, #4; goto the last
	line := frames[0].Line
	c.Send("gotoTargets", map[string]any{"source": map[string]any{"path": relayFile(t)}, "line": line})
	targets := daptest.Expect[*dap.GotoTargetsResponse](t, c).Body.Targets
	if len(targets) != 3 {
		t.Fatalf("goto targets %+v", targets)
	}
	c.Send("goto", map[string]any{"threadId": 1, "targetId": targets[2].Id})
	daptest.Expect[*dap.GotoResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// a log point prints instead of stopping
	c.SetBreakpointsWith(relayFile(t), []map[string]any{{"line": line, "logMessage": "hops {B.Routes[\"A\"]?.Hops}"}})
	daptest.Expect[*dap.SetBreakpointsResponse](t, c)
	c.Send("cmc/gotoStep", map[string]any{"step": 0})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	c.ContinueRequest(1)
	daptest.Expect[*dap.ContinueResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	if out := c.Output(); !strings.Contains(out, "hops 1\nhops 1\nhops 3\n") {
		t.Fatalf("log points printed %q", out)
	}
	// a hit condition: the second time the receive handler runs
	c.SetBreakpointsWith(relayFile(t), []map[string]any{{"line": line, "hitCondition": "2"}})
	daptest.Expect[*dap.SetBreakpointsResponse](t, c)
	c.Send("cmc/gotoStep", map[string]any{"step": 0})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	c.ContinueRequest(1)
	daptest.Expect[*dap.ContinueResponse](t, c)
	daptest.ExpectStopped(t, c, "breakpoint")
	if top := stack(t, c, 3)[0]; !strings.HasPrefix(top.Name, "#3 ") {
		t.Fatalf("hit condition 2 stopped at %s", top.Name)
	}
	// a condition that does not compile is refused when set
	c.SetFunctionBreakpointsRequest(map[string]any{"name": "receive", "condition": "B.Routes[", "hitCondition": "x"})
	if b := daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c).Body.Breakpoints; b[0].Verified || !strings.Contains(b[0].Message, "condition") {
		t.Fatalf("bad condition accepted: %+v", b)
	}
	// a function breakpoint no step matches
	c.SetFunctionBreakpointsRequest(map[string]any{"name": "D.*"})
	if b := daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c).Body.Breakpoints; b[0].Verified {
		t.Fatalf("D.* verified: %+v", b)
	}
	// repl commands
	c.EvaluateRequest(":goto 1", 0, "repl")
	daptest.Expect[*dap.EvaluateResponse](t, c)
	daptest.ExpectStopped(t, c, "goto")
	c.EvaluateRequest(":bookmark first-send the ad is in flight", 0, "repl")
	if r := daptest.Expect[*dap.EvaluateResponse](t, c).Body.Result; r != "bookmarked step 1 of trace 1 as first-send" {
		t.Fatalf(":bookmark: %s", r)
	}
	c.Send("cmc/renameBookmark", map[string]any{"name": "first-send", "newName": "ad-sent"})
	daptest.ExpectCustom(t, c, "cmc/renameBookmark", nil)
	c.Send("cmc/removeBookmark", map[string]any{"name": "first-send"})
	daptest.ExpectError(t, c, "not found")
	c.Send("cmc/removeBookmark", map[string]any{"name": "ad-sent"})
	daptest.ExpectCustom(t, c, "cmc/removeBookmark", nil)
}

// TestCancelCheck: a check that would run forever reports progress and ends when the client
// cancels its progress.
func TestCancelCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	c := start(t, Config{})
	initialize(t, c)
	c.LaunchRequest(map[string]any{"program": relayDir(t), "model": "Forever", "db": db})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	// << progressStart, << progressUpdate (the worker reports once a second)
	start := daptest.Expect[*dap.ProgressStartEvent](t, c)
	if !start.Body.Cancellable {
		t.Fatalf("progress %+v", start.Body)
	}
	update := daptest.Expect[*dap.ProgressUpdateEvent](t, c)
	if !strings.Contains(update.Body.Message, "states/s") {
		t.Fatalf("progress %+v", update.Body)
	}
	// >> pause, << error: a check is cancelled, not paused
	c.Send("pause", map[string]any{"threadId": 1})
	daptest.ExpectError(t, c, "cannot be paused")
	// >> cancel {progressId}, << cancel, << progressEnd, << terminated
	c.CancelRequest(start.Body.ProgressId)
	daptest.Expect[*dap.CancelResponse](t, c)
	daptest.Expect[*dap.TerminatedEvent](t, c)
	if out := c.Output(); !strings.Contains(out, "check cancelled") {
		t.Fatalf("output %q", out)
	}
}

// TestRestartDuringCheck: restarting while a check runs replaces it; the old check's end does not
// end the session.
func TestRestartDuringCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	c := start(t, Config{})
	initialize(t, c)
	c.LaunchRequest(map[string]any{"program": relayDir(t), "model": "Forever", "db": db})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.Expect[*dap.ProgressStartEvent](t, c)
	c.RestartRequest(map[string]any{"program": relayDir(t), "model": "Relay", "db": db})
	daptest.Expect[*dap.RestartResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	for _, m := range c.SetAside() {
		if _, ok := m.(*dap.TerminatedEvent); ok {
			t.Fatal("the replaced check ended the session")
		}
	}
}
