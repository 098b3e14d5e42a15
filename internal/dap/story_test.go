package dap

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
	"github.com/google/go-dap"
)

// TestStory is the user's day on the relay model, as a wire transcript: check it, stop on the
// violation, look at the trace, move back and forth, break when B's route to A changes, bookmark
// a state; then, in a second session, check again from the bookmark with the bug fixed and
// without.
//
// The trace the check finds (relay.go):
//
//	#1 A.announce (Choose(2) = 0: to B)   #2 B: receive AD from A (B.Routes["A"].Hops = 1)
//	#3 C: receive AD from B (hops 2)       #4 B: receive AD from C (hops 3: HopBound broken)
func TestStory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	c := start(t, Config{})

	// 1 >> initialize, << initialize
	caps := initialize(t, c).Body
	if !caps.SupportsStepBack || !caps.SupportsDataBreakpoints || !caps.SupportsConditionalBreakpoints {
		t.Fatalf("capabilities %+v", caps)
	}
	// 2 >> launch, << initialized, << launch
	c.LaunchRequest(map[string]any{"program": relayDir(t), "model": "Relay", "db": db, "stepInto": "choices"})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	// 3 >> setBreakpoints (the Choose line, and a line that runs nothing), << setBreakpoints
	chooseLine := lineOf(t, relayFile(t), "cmc.Choose(2)")
	c.SetBreakpointsRequest(relayFile(t), chooseLine, 1)
	bps := daptest.Expect[*dap.SetBreakpointsResponse](t, c).Body.Breakpoints
	if bps[0].Verified || !strings.Contains(bps[0].Message, "pending") {
		t.Fatalf("before the trace exists: %+v", bps[0])
	}
	// 4 >> configurationDone, << configurationDone, << breakpoint (x2), << stopped exception
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	stop := daptest.ExpectStopped(t, c, "exception")
	if stop.Body.Text != `invariant HopBound: B's route to A has 3 hops` {
		t.Fatalf("stopped: %+v", stop.Body)
	}
	verified := map[int]bool{}
	for _, m := range c.SetAside() {
		if e, ok := m.(*dap.BreakpointEvent); ok {
			verified[e.Body.Breakpoint.Line] = e.Body.Breakpoint.Verified
		}
	}
	if !verified[chooseLine] || verified[1] {
		t.Fatalf("breakpoints verified once the trace loaded: %v", verified)
	}
	if out := c.Output(); !strings.Contains(out, "stored as trace 1") {
		t.Fatalf("output: %s", out)
	}
	// 5 >> exceptionInfo, << exceptionInfo
	c.ExceptionInfoRequest(stop.Body.ThreadId)
	if ex := daptest.Expect[*dap.ExceptionInfoResponse](t, c).Body; ex.ExceptionId != "invariant HopBound" || !strings.Contains(ex.Description, "B's route to A") {
		t.Fatalf("exceptionInfo %+v", ex)
	}
	// 6 >> threads, << threads: the processes
	c.ThreadsRequest()
	if got := threadNames(daptest.Expect[*dap.ThreadsResponse](t, c)); got != "A B C" {
		t.Fatalf("threads %s", got)
	}
	// 7 >> stackTrace, << stackTrace: the trace, newest first
	frames := stack(t, c, stop.Body.ThreadId)
	want := []string{"#4 B: receive AD from C", "#3 C: receive AD from B", "#2 B: receive AD from A", "#1 A.announce", "#0 initial state"}
	if got := frameNames(frames); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("stack %q", got)
	}
	// 8 >> scopes, << scopes; >> variables (State, B, Routes, ["A"]), << variables
	scopes := scopeRefs(t, c, frames[0].Id)
	if names := strings.Join(sortedKeys(scopes), " "); names != "Changes Choices Messages Network State" {
		t.Fatalf("scopes %s", names)
	}
	route := vars(t, c, vars(t, c, vars(t, c, scopes["State"])["B"].VariablesReference)["Routes"].VariablesReference)
	if v := vars(t, c, route[`["A"]`].VariablesReference)["Hops"]; v.Value != "3" || v.EvaluateName != `B.Routes["A"].Hops` {
		t.Fatalf("B.Routes[A].Hops %+v", v)
	}
	if ch := vars(t, c, scopes["Changes"]); ch[`B.Routes["A"].Hops`].Value != "1 → 3" {
		t.Fatalf("changes %+v", ch)
	}
	// 9 >> next at the end of the trace: it stays
	c.NextRequest(2)
	daptest.Expect[*dap.NextResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// 10 >> stepBack, << stepBack, << stopped step (at #3, C acting)
	c.StepBackRequest(2)
	daptest.Expect[*dap.StepBackResponse](t, c)
	if e := daptest.ExpectStopped(t, c, "step"); e.Body.ThreadId != 3 {
		t.Fatalf("stopped in thread %d, want C (3)", e.Body.ThreadId)
	}
	// 11 >> cmc/gotoStep 0, << cmc/gotoStep, << stopped goto; >> stepIn: inside #1 at its Choose
	c.Send("cmc/gotoStep", map[string]any{"step": 0})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	c.StepInRequest(1)
	daptest.Expect[*dap.StepInResponse](t, c)
	// Choose calls count from 1, as replay and the CLI count them (engine.Cursor).
	if e := daptest.ExpectStopped(t, c, "step"); e.Body.Description != "Paused on step in: Choose #1 of step 1" {
		t.Fatalf("stopped inside step 1: %q", e.Body.Description)
	}
	top := stack(t, c, 1)[0]
	if top.Line != chooseLine || !strings.Contains(top.Name, "Choose(2) = 0") {
		t.Fatalf("inside step 1: %+v", top)
	}
	if ch := vars(t, c, scopeRefs(t, c, top.Id)["Choices"]); len(ch) != 1 || ch[fmt.Sprintf("#1 relay.go:%d", chooseLine)].Value != "0" {
		t.Fatalf("choices inside step 1: %+v", ch)
	}
	// 12 >> stepOut: after #1; >> continue: the Choose breakpoint is behind, so to the end (the violation)
	c.StepOutRequest(1)
	daptest.Expect[*dap.StepOutResponse](t, c)
	daptest.ExpectStopped(t, c, "step")
	c.ContinueRequest(1)
	daptest.Expect[*dap.ContinueResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// 13 >> reverseContinue: back to the Choose breakpoint inside #1
	c.ReverseContinueRequest(2)
	daptest.Expect[*dap.ReverseContinueResponse](t, c)
	if e := daptest.ExpectStopped(t, c, "breakpoint"); len(e.Body.HitBreakpointIds) != 1 {
		t.Fatalf("hit %v", e.Body.HitBreakpointIds)
	}
	c.SetBreakpointsRequest(relayFile(t))
	daptest.Expect[*dap.SetBreakpointsResponse](t, c)

	// 14 >> cmc/gotoStep 2, then a data breakpoint on B's route to A (from the Variables pane)
	c.Send("cmc/gotoStep", map[string]any{"step": 2})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	scopes = scopeRefs(t, c, stack(t, c, 2)[0].Id)
	routes := vars(t, c, scopes["State"])["B"]
	routesRef := vars(t, c, routes.VariablesReference)["Routes"].VariablesReference
	c.DataBreakpointInfoRequest(routesRef, `["A"]`)
	info := daptest.Expect[*dap.DataBreakpointInfoResponse](t, c).Body
	if info.DataId != `B.Routes["A"]` {
		t.Fatalf("dataBreakpointInfo %+v", info)
	}
	c.SetDataBreakpointsRequest(`B.Routes["A"]`)
	if b := daptest.Expect[*dap.SetDataBreakpointsResponse](t, c).Body.Breakpoints; !b[0].Verified {
		t.Fatalf("data breakpoint %+v", b)
	}
	// 15 >> continue: stops at #4, where B's route to A changes again
	c.ContinueRequest(2)
	daptest.Expect[*dap.ContinueResponse](t, c)
	daptest.ExpectStopped(t, c, "data breakpoint")
	if top := stack(t, c, 2)[0]; top.Name != "#4 B: receive AD from C" {
		t.Fatalf("data breakpoint at %s", top.Name)
	}
	// 16 >> reverseContinue: back to #2, where the route appeared; again: to the start
	c.ReverseContinueRequest(2)
	daptest.Expect[*dap.ReverseContinueResponse](t, c)
	daptest.ExpectStopped(t, c, "data breakpoint")
	c.ReverseContinueRequest(2)
	daptest.Expect[*dap.ReverseContinueResponse](t, c)
	daptest.ExpectStopped(t, c, "entry")
	c.SetDataBreakpointsRequest()
	daptest.Expect[*dap.SetDataBreakpointsResponse](t, c)

	// 17 a conditional function breakpoint: B's receive, once its route is long
	c.SetFunctionBreakpointsRequest(map[string]any{"name": "B.receive", "condition": `B.Routes["A"].Hops > 2`})
	daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c)
	c.ContinueRequest(1)
	daptest.Expect[*dap.ContinueResponse](t, c)
	daptest.ExpectStopped(t, c, "function breakpoint")
	if top := stack(t, c, 2)[0]; !strings.HasPrefix(top.Name, "#4 ") {
		t.Fatalf("function breakpoint at %s", top.Name)
	}
	c.SetFunctionBreakpointsRequest()
	daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c)

	// 18 >> evaluate (watch, hover in handler code, repl command)
	c.Send("cmc/gotoStep", map[string]any{"step": 2})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	for _, e := range []struct{ expr, context, want string }{
		{`B.Routes["A"].Hops + 1`, "watch", "2"},
		{`B.Routes["A"].Next`, "hover", `"A"`},
		{`me.Routes["A"].Next`, "hover", `"A"`}, // the frame's line is the handler: m.Process(me.Name, me).On(...)
		{`len(net.Pending)`, "repl", "1"},
		// a set's element is named by its value, as the Variables pane shows it
		{`net.Pending["{1 2 AD{A seq 1 hops 1}}"].Msg`, "watch", `{Dest: "A", Seq: 1, Hops: 1}`},
	} {
		c.EvaluateRequest(e.expr, 0, e.context)
		if got := daptest.Expect[*dap.EvaluateResponse](t, c).Body.Result; got != e.want {
			t.Errorf("%s = %s, want %s", e.expr, got, e.want)
		}
	}
	c.EvaluateRequest(`B.Routes[`, 0, "watch")
	daptest.ExpectError(t, c, "unexpected")

	// 19 >> cmc/addBookmark at #2, << cmc/addBookmark; >> cmc/bookmarks; >> cmc/diff; >> cmc/choices
	c.Send("cmc/addBookmark", map[string]any{"name": "b-has-route", "note": "B learnt its route to A"})
	var added struct{ Bookmark struct{ Trace, Step int } }
	daptest.ExpectCustom(t, c, "cmc/addBookmark", &added)
	if added.Bookmark.Step != 2 || added.Bookmark.Trace != 1 {
		t.Fatalf("bookmark %+v", added)
	}
	c.Send("cmc/bookmarks", nil)
	var list struct{ Bookmarks []struct{ Name string } }
	daptest.ExpectCustom(t, c, "cmc/bookmarks", &list)
	if len(list.Bookmarks) != 1 || list.Bookmarks[0].Name != "b-has-route" {
		t.Fatalf("bookmarks %+v", list)
	}
	c.Send("cmc/diff", nil)
	var diff struct {
		Step    int
		Changes []struct{ Path, Kind string }
	}
	daptest.ExpectCustom(t, c, "cmc/diff", &diff)
	if diff.Step != 2 || !hasChange(diff.Changes, `B.Routes["A"].Hops`, "added") {
		t.Fatalf("diff %+v", diff)
	}
	c.Send("cmc/choices", nil)
	var choices struct {
		Choices []struct{ Step, Choice, Line, Value, N int }
	}
	daptest.ExpectCustom(t, c, "cmc/choices", &choices)
	if len(choices.Choices) != 1 || choices.Choices[0].Line != chooseLine || choices.Choices[0].N != 2 || choices.Choices[0].Choice != 1 {
		t.Fatalf("choices %+v", choices)
	}
	// 20 >> disconnect, << disconnect
	c.DisconnectRequest()
	daptest.Expect[*dap.DisconnectResponse](t, c)
	daptest.ExpectEnd(t, c)

	t.Run("relaunch from the bookmark", func(t *testing.T) {
		// The bug is still there: the same violation, through the bookmarked state.
		c := start(t, Config{})
		initialize(t, c)
		c.LaunchRequest(map[string]any{"program": relayDir(t), "bookmark": "b-has-route", "db": db})
		daptest.Expect[*dap.InitializedEvent](t, c)
		daptest.Expect[*dap.LaunchResponse](t, c)
		c.ConfigurationDoneRequest()
		daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
		daptest.ExpectStopped(t, c, "exception")
		if n := len(stack(t, c, 2)); n != 5 {
			t.Fatalf("%d frames, want the 4 steps and the initial state", n)
		}
		// The same steps as trace 1: the session opens trace 1, nothing is stored twice.
		if out := c.Output(); !strings.Contains(out, "the same as trace 1 in ") || strings.Contains(out, "stored as trace 2") {
			t.Fatalf("output: %s", out)
		}
		if r := result(t, c); r.Trace != 1 || !r.Known || r.Bookmark == nil || r.Bookmark.Name != "b-has-route" ||
			r.Comparison != "original: invariant HopBound: B's route to A has 3 hops at step 4 (trace 1); now: the same violation along the same steps (trace 1)" {
			t.Fatalf("cmc/result %+v", r)
		}
		c.Send("cmc/traces", nil)
		var list struct {
			Traces  []store.TraceInfo `json:"traces"`
			Current int64             `json:"current"`
		}
		daptest.ExpectCustom(t, c, "cmc/traces", &list)
		if len(list.Traces) != 1 || list.Current != 1 {
			t.Fatalf("traces after the re-check: %d, current %d; want trace 1 only", len(list.Traces), list.Current)
		}
	})
	t.Run("relaunch from the bookmark, fixed", func(t *testing.T) {
		// "Fixed": a bound no path reaches. The check from the bookmark ends without a violation.
		c := start(t, Config{})
		initialize(t, c)
		checkClean(t, c, map[string]any{"program": relayDir(t), "bookmark": "b-has-route", "db": db, "params": map[string]any{"hops": 10}})
		if out := c.Output(); !strings.Contains(out, "no violation") {
			t.Fatalf("output: %s", out)
		}
		// What the editor shows: no violation, in how many states, complete, and the comparison.
		r := result(t, c)
		want := fmt.Sprintf("original: invariant HopBound: B's route to A has 3 hops at step 4 (trace 1); now: no violation in %s states (complete)", tracefmt.Thousands(r.States))
		if r.Violation != "" || r.Trace != 0 || !r.Complete || r.States == 0 || r.Comparison != want {
			t.Fatalf("cmc/result %+v; want the comparison %q", r, want)
		}
	})
}

// result is the cmc/result event a check sent.
func result(t *testing.T, c *daptest.Client) service.Report {
	t.Helper()
	for _, m := range c.SetAside() {
		if e, ok := m.(*daptest.CustomEvent); ok && e.Event.Event == "cmc/result" {
			var r service.Report
			if err := json.Unmarshal(e.Body, &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatal("no cmc/result event")
	return service.Report{}
}
