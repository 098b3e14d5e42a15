package dap

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/google/go-dap"
)

// delvePath is the dlv a test runs: CMC_DLV (the Makefile installs a pinned one), else as the
// session finds it. With CMC_REQUIRE_DLV set (CI) a missing Delve fails the test.
func delvePath(t *testing.T) string {
	t.Helper()
	dlv, err := service.FindDelve(os.Getenv("CMC_DLV"))
	if err != nil && os.Getenv("CMC_REQUIRE_DLV") != "" {
		t.Fatal(err)
	} else if err != nil {
		t.Skip(err)
	}
	return dlv
}

func aodvDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "aodv")
}

// TestStepIntoTheCode is the wire transcript of debugging the stale RERR in the protocol code:
// at step 16 of the AODV loop, Step Into enters step 17 (A receives B's stale RERR) under Delve,
// at the handler's first line; continue stops on the breakpoint in rerr.go that copies the
// RERR's sequence number; the Call Stack is the real Go stack above the trace; locals read;
// a function call is refused; step out leaves the handler, and the session is back at trace
// level after step 17.
func TestStepIntoTheCode(t *testing.T) {
	dlv := delvePath(t)
	c, _, _ := openAODV(t, map[string]any{"program": aodvDir(), "goDebugger": dlv})
	rerr := filepath.Join(aodvDir(), "rerr.go")

	// >> cmc/gotoStep 16, << stopped goto; >> setBreakpoints rerr.go:49
	c.Send("cmc/gotoStep", map[string]any{"step": 16})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	c.SetBreakpointsRequest(rerr, 49)
	daptest.Expect[*dap.SetBreakpointsResponse](t, c)

	// >> stepIn, << stopped step at the handler's first line, in thread A (1)
	c.StepInRequest(1)
	daptest.Expect[*dap.StepInResponse](t, c)
	e := daptest.ExpectStopped(t, c, "step")
	if e.Body.ThreadId != 1 || !strings.HasPrefix(e.Body.Description, "Paused in step 17: NewModel.func") {
		t.Fatalf("step in stopped %+v", e.Body)
	}
	frames := stack(t, c, 1)
	if top := frames[0]; top.Name != "#17 A: receive RERR from B › "+strings.TrimPrefix(e.Body.Description, "Paused in step 17: ") ||
		filepath.Base(top.Source.Path) != "model.go" || frames[1].Name[:4] != "#16 " || len(frames) != 18 {
		t.Fatalf("stack in the handler: %s", strings.Join(frameNames(frames), " < "))
	}

	// >> continue, << stopped breakpoint in recvRERR at rerr.go:49
	e = cont(t, c, "breakpoint")
	if e.Body.Description != "Paused on breakpoint in step 17: rerr.go:49" {
		t.Fatalf("continue stopped %q", e.Body.Description)
	}
	frames = stack(t, c, 1)
	if names := strings.Join(frameNames(frames), " < "); !strings.HasPrefix(names, "aodv.(*Router).recvRERR < aodv.(*Router).Receive < #17 A: receive RERR from B › NewModel.func") ||
		frames[0].Line != 49 || !strings.Contains(names, " < #16 ") {
		t.Fatalf("stack at the breakpoint: %s (line %d)", names, frames[0].Line)
	}
	locals := vars(t, c, scopeRefs(t, c, frames[0].Id)["Locals"])
	if _, ok := locals["u"]; !ok {
		t.Fatalf("locals of recvRERR: %v", keys(locals))
	}
	if got := evaluate(t, c, "u.Dest", "hover"); got != "3 = 0x3" {
		t.Errorf("u.Dest = %q, want D (3)", got)
	}
	c.EvaluateRequest("call r.now()", 0, "repl")
	daptest.ExpectError(t, c, "only reads")

	// >> stepOut until the handler returns, << stopped after step 17, at trace level
	for i := 0; ; i++ {
		c.StepOutRequest(1)
		daptest.Expect[*dap.StepOutResponse](t, c)
		e = daptest.ExpectStopped(t, c, "step")
		if !strings.HasPrefix(e.Body.Description, "Paused in step 17") || i == 5 {
			break
		}
	}
	if e.Body.Description != "Paused after step 17: its handler returned" {
		t.Fatalf("stepping out stopped %q", e.Body.Description)
	}
	if step := topStep(t, c, 1); step != "#17" {
		t.Fatalf("after the step the top frame is %s", step)
	}
	if out := c.Output(); strings.Contains(out, "cmc: step 17") {
		t.Fatalf("the step did not reach the stored state: %s", out)
	}
}

// TestStepIntoWithoutDelve: without Delve, Step Into stops at the step's Choose calls (as
// stepInto "choices" does) and the session says why.
func TestStepIntoWithoutDelve(t *testing.T) {
	c, _, _ := openAODV(t, map[string]any{"program": aodvDir(), "goDebugger": filepath.Join(t.TempDir(), "no-dlv")})
	c.Send("cmc/gotoStep", map[string]any{"step": 16})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	c.StepInRequest(1)
	daptest.Expect[*dap.StepInResponse](t, c)
	// Step 17 makes no Choose call, so step in goes over it.
	if e := daptest.ExpectStopped(t, c, "step"); e.Body.Description != "Paused on step" || topStep(t, c, 1) != "#17" {
		t.Fatalf("step in without Delve stopped %q", e.Body.Description)
	}
	if out := c.Output(); !strings.Contains(out, "Step Into stops at Choose calls: goDebugger") {
		t.Fatalf("output %q does not say why", out)
	}
}

func keys(m map[string]dap.Variable) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestBreakOnAnyLine: a breakpoint on a line of the protocol code that is neither a handler nor
// a Choose site is pending until a scan under Delve finds the steps that run it, then verified
// with them; continue stops on that line inside the step, with the Go stack, and reverse
// continue from the end goes back to it.
func TestBreakOnAnyLine(t *testing.T) {
	dlv := delvePath(t)
	c, _, _ := openAODV(t, map[string]any{"program": aodvDir(), "goDebugger": dlv})
	rerr := filepath.Join(aodvDir(), "rerr.go")

	// >> setBreakpoints rerr.go:49, << pending; << breakpoint changed: runs in step 17
	c.SetBreakpointsRequest(rerr, 49)
	set := daptest.Expect[*dap.SetBreakpointsResponse](t, c).Body.Breakpoints
	if len(set) != 1 || set[0].Verified || !strings.HasPrefix(set[0].Message, "pending: looking for the steps") {
		t.Fatalf("set: %+v", set)
	}
	if b := daptest.Expect[*dap.BreakpointEvent](t, c).Body.Breakpoint; !b.Verified || b.Message != "runs in step 17" || b.Id != set[0].Id {
		t.Fatalf("after the scan: %+v", b)
	}

	// >> cmc/gotoStep 0; >> continue, << stopped breakpoint on rerr.go:49 inside step 17
	c.Send("cmc/gotoStep", map[string]any{"step": 0})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	e := cont(t, c, "breakpoint")
	frames := stack(t, c, 1)
	if e.Body.Description != "Paused on breakpoint in step 17: rerr.go:49" || frames[0].Line != 49 || !strings.HasSuffix(frames[0].Name, "recvRERR") {
		t.Fatalf("continue stopped %q at %s", e.Body.Description, strings.Join(frameNames(frames), " < "))
	}

	// >> continue: the step ends, the trace goes on to the violation
	cont(t, c, "exception")

	// >> reverseContinue: back into step 17, on the line
	c.ReverseContinueRequest(1)
	daptest.Expect[*dap.ReverseContinueResponse](t, c)
	if e := daptest.ExpectStopped(t, c, "breakpoint"); e.Body.Description != "Paused on breakpoint in step 17: rerr.go:49" {
		t.Fatalf("reverse continue stopped %q", e.Body.Description)
	}
}

// TestConditionalBreakOnAnyLine: a condition on a line of the code is Go, evaluated by Delve inside
// each step that runs the line. Router.Receive's first line runs in every delivery; with "from
// == 3" continue passes the deliveries from other routers (each step runs and ends under Delve)
// and stops in the first step that delivers a message from D.
func TestConditionalBreakOnAnyLine(t *testing.T) {
	dlv := delvePath(t)
	c, tr, _ := openAODV(t, map[string]any{"program": aodvDir(), "goDebugger": dlv})
	first := 0 // the first step that delivers a message from D
	for i, st := range tr.Steps {
		for _, n := range st.Notes {
			if first == 0 && n.Kind == "deliver" && n.From == "D" {
				first = i + 1
			}
		}
	}
	if first == 0 {
		t.Fatal("no delivery from D in the loop's trace")
	}
	c.Send("setBreakpoints", map[string]any{"source": map[string]any{"path": filepath.Join(aodvDir(), "router.go")},
		"breakpoints": []map[string]any{{"line": 111, "condition": "from == 3"}}})
	daptest.Expect[*dap.SetBreakpointsResponse](t, c)
	if b := daptest.Expect[*dap.BreakpointEvent](t, c).Body.Breakpoint; !b.Verified || !strings.HasPrefix(b.Message, "runs in steps ") {
		t.Fatalf("after the scan: %+v", b)
	}
	c.Send("cmc/gotoStep", map[string]any{"step": 0})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	e := cont(t, c, "breakpoint")
	if want := fmt.Sprintf("Paused on breakpoint in step %d: router.go:111", first); e.Body.Description != want {
		t.Fatalf("continue stopped %q, want %q", e.Body.Description, want)
	}
	if got := evaluate(t, c, "from", "repl"); got != "3 = 0x3" {
		t.Fatalf("from = %s at the stop", got)
	}
}
