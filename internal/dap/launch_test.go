package dap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/internal/dap/testdata/relay"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// TestLaunchErrors: every wrong attribute is an error response to launch that names it and says
// what it takes; the session goes on, and a good launch after a bad one works.
func TestLaunchErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	dir := relayDir(t)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, `"program" is missing`},
		{map[string]any{"program": 3}, `launch: "program" must be a string, not 3`},
		{map[string]any{"program": dir, "search": "xyz"}, `launch: "search" must be one of bfs, dfs, random, best, deepen, swarm, not "xyz"`},
		{map[string]any{"program": dir, "maxDepth": "ten"}, `launch: "maxDepth" must be a whole number from 0 to 2147483647, not "ten"`},
		{map[string]any{"program": dir, "maxStates": -1}, `"maxStates" must be a whole number from 0 up, not -1`},
		{map[string]any{"program": dir, "steps": 1.5}, `"steps" must be a whole number`},
		{map[string]any{"program": dir, "stopOnEntry": "yes"}, `"stopOnEntry" must be true or false, not "yes"`},
		{map[string]any{"program": dir, "params": []int{1}}, `"params" must be an object of model parameters`},
		{map[string]any{"program": dir, "params": map[string]any{"hops": []int{2}}}, `"params.hops" must be a string, number or boolean, not [2]`},
		{map[string]any{"program": dir, "deadline": 0}, `"deadline" must be a number of seconds above 0, not 0`},
		{map[string]any{"program": dir, "selfCheck": -2}, `"selfCheck" must be a whole number from -1 up, not -2`},
		{map[string]any{"trace": 1, "bookmark": "x"}, `give "trace" (open a stored trace) or "bookmark"`},
		{map[string]any{"trace": 0}, `"trace" must be a whole number from 1 up, not 0`},
		{map[string]any{"trace": 99, "db": db}, `launch: "trace": store: trace 99: not found`},
		// What VS Code sends for "trace": "${input:traceId}": the digits are taken as the number.
		{map[string]any{"trace": "99", "db": db}, `launch: "trace": store: trace 99: not found`},
		{map[string]any{"program": dir, "db": db, "bookmark": "nope"}, `launch: "bookmark": store: bookmark "nope": not found; the bookmarks are: (none)`},
		{map[string]any{"program": filepath.Join(dir, "missing"), "db": db}, `launch: "program"`},
		{map[string]any{"program": dir, "partitions": -1}, `launch: "partitions" must be a whole number from 0 to 1024, not -1`},
		{map[string]any{"program": dir, "partitions": "two"}, `launch: "partitions" must be a whole number from 0 to 1024, not "two"`},
		{map[string]any{"program": dir, "partitions": 2, "search": "dfs", "goal": "g"}, `launch: "partitions" runs a breadth-first search without "search": "dfs", "goal": drop them, or drop "partitions"`},
		{map[string]any{"program": dir, "partitions": 2, "nats": 4222}, `launch: "nats" must be a string, not 4222`},
		{map[string]any{"program": dir, "partitions": 2, "nats": "nats://me:s3cret@nats:4222"}, `launch: "nats" must be a URL without credentials, e.g. "nats://nats.example:4222": give them in cmcdap's environment (CMC_NATS_TOKEN, or CMC_NATS_USER and CMC_NATS_PASSWORD, or CMC_NATS_CREDS)`},
		{map[string]any{"program": dir, "nats": "nats://nats:4222"}, `launch: "nats" is where the partitions of a partitioned check meet: add "partitions", or drop "nats"`},
	} {
		s := start(t, Config{})
		initialize(t, s)
		s.LaunchRequest(c.args)
		daptest.ExpectError(t, s, c.want)
	}
	if testing.Short() {
		return
	}
	// Errors that need the package built: the model and its parameters.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"program": dir, "db": db}, `"model" is missing: package github.com/cmc-go/cmc/internal/dap/testdata/relay has Forever, Quiet, Relay`},
		{map[string]any{"program": dir, "db": db, "model": "Relya"}, `"model" must be one of Forever, Quiet, Relay, not "Relya"`},
		{map[string]any{"program": dir, "db": db, "model": "Relay", "params": map[string]any{"hops": 0}}, `model Relay: parameter hops=0: want at least 1`},
		{map[string]any{"program": dir, "db": db, "model": "Relay", "params": map[string]any{"hopz": 3}}, `model Relay has no parameter hopz; it takes: hops (default 2)`},
	} {
		s := start(t, Config{})
		initialize(t, s)
		s.LaunchRequest(c.args)
		daptest.ExpectError(t, s, c.want)
		// The same session can launch again after a failed launch.
		s.LaunchRequest(map[string]any{"program": dir, "db": db, "model": "Relay", "misspeled": 1})
		daptest.Expect[*dap.InitializedEvent](t, s)
		daptest.Expect[*dap.LaunchResponse](t, s)
		if out := s.Output(); !strings.Contains(out, `unknown attribute "misspeled" is ignored`) {
			t.Errorf("no warning about an unknown attribute: %q", out)
		}
	}
}

// storeTrace checks the relay model in process and stores its violation's trace.
func storeTrace(t testing.TB, path string) int64 {
	t.Helper()
	res, err := engine.Check(context.Background(), relay.New(2), engine.Options{})
	if err != nil || len(res.Violations) != 1 {
		t.Fatalf("check: %v, %d violations", err, len(res.Violations))
	}
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id, err := db.AddTrace(0, res.Violations[0], time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestOpenStoredTrace opens a trace from the database: no build, no check.
func TestOpenStoredTrace(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	id := storeTrace(t, db)
	c := start(t, Config{})
	initialize(t, c)
	// 2 >> launch {trace}, << initialized, << launch
	c.LaunchRequest(map[string]any{"trace": id, "db": db})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	// 3 >> threads before configurationDone: the trace is loaded but not shown yet
	c.ThreadsRequest()
	daptest.Expect[*dap.ThreadsResponse](t, c)
	c.StackTraceRequest(1, 0, 1)
	daptest.ExpectError(t, c, "not stopped")
	// 4 >> configurationDone, << configurationDone, << stopped exception
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// 5 >> stackTrace in pages, as VS Code loads it: 1 frame, then the rest
	c.StackTraceRequest(2, 0, 1)
	r := daptest.Expect[*dap.StackTraceResponse](t, c)
	if len(r.Body.StackFrames) != 1 || r.Body.TotalFrames != 5 {
		t.Fatalf("first page: %d frames of %d", len(r.Body.StackFrames), r.Body.TotalFrames)
	}
	c.StackTraceRequest(2, 1, 20)
	if r := daptest.Expect[*dap.StackTraceResponse](t, c); len(r.Body.StackFrames) != 4 {
		t.Fatalf("second page: %d frames", len(r.Body.StackFrames))
	}
	// 6 another thread's stack is its own steps: C acted once
	if got := frameNames(stack(t, c, 3)); strings.Join(got, "|") != "#3 C: receive AD from B|#0 initial state" {
		t.Fatalf("C's stack %q", got)
	}
	// 7 >> restart: a stored trace goes back to its start
	c.RestartRequest(nil)
	daptest.Expect[*dap.RestartResponse](t, c)
	daptest.ExpectStopped(t, c, "entry")
	// 8 >> cmc/traces
	c.Send("cmc/traces", nil)
	var traces struct {
		Traces  []struct{ ID, Length int }
		Current int
	}
	daptest.ExpectCustom(t, c, "cmc/traces", &traces)
	if len(traces.Traces) != 1 || traces.Traces[0].Length != 4 || traces.Current != int(id) {
		t.Fatalf("traces %+v", traces)
	}
	// 9 >> cmc/graph without a program: an error that says what to give
	c.Send("cmc/graph", nil)
	daptest.ExpectError(t, c, `give "program"`)
}

// TestStopOnEntry stops at the initial state, with the initial state's variables.
func TestStopOnEntry(t *testing.T) {
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
	frames := stack(t, c, 1)
	if len(frames) != 1 || frames[0].Name != "#0 initial state" {
		t.Fatalf("stack %q", frameNames(frames))
	}
	scopes := scopeRefs(t, c, frames[0].Id)
	if v := vars(t, c, vars(t, c, scopes["State"])["A"].VariablesReference)["Seq"]; v.Value != "0" {
		t.Fatalf("A.Seq %+v", v)
	}
}

// TestWireLog records every message in and out.
func TestWireLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wire.log")
	wl, err := OpenWireLog(path)
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, Config{WireLog: wl})
	initialize(t, c)
	c.DisconnectRequest()
	daptest.Expect[*dap.DisconnectResponse](t, c)
	daptest.ExpectEnd(t, c)
	wl.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], ` << {`) || !strings.Contains(lines[0], `"command":"initialize"`) ||
		!strings.Contains(lines[1], ` >> {"seq":1,"type":"response"`) {
		t.Fatalf("wire log:\n%s", b)
	}
}

// TestRestartRechecks: restart on a checking session builds and checks again (the code may have
// changed) and stops on the trace it finds (the stored one, when it takes the same steps); with
// new arguments it checks those.
func TestRestartRechecks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	c := start(t, Config{})
	initialize(t, c)
	args := map[string]any{"program": relayDir(t), "model": "Relay", "db": db}
	c.LaunchRequest(args)
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// >> restart, << restart, << stopped exception (the same steps: trace 1 again, not a copy)
	c.RestartRequest(nil)
	daptest.Expect[*dap.RestartResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	if out := c.Output(); strings.Count(out, "checked Relay") != 2 || !strings.Contains(out, "the same as trace 1 in ") || strings.Contains(out, "trace 2") {
		t.Fatalf("output %q", out)
	}
	// >> restart with a bound the trace cannot break, << restart, << exited, << terminated
	args["params"] = map[string]any{"hops": 10}
	c.RestartRequest(args)
	daptest.Expect[*dap.RestartResponse](t, c)
	daptest.Expect[*dap.ExitedEvent](t, c)
	daptest.Expect[*dap.TerminatedEvent](t, c)
	// >> restart with a bad attribute, << error
	args["search"] = "sideways"
	c.RestartRequest(args)
	daptest.ExpectError(t, c, `"search" must be one of`)
}

// TestCheckWithoutViolation checks the TwoPhase example: no violation, so the session prints the
// summary and ends.
func TestCheckWithoutViolation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	c := start(t, Config{})
	initialize(t, c)
	checkClean(t, c, map[string]any{"program": "../../examples/twophase", "params": map[string]any{"RM": 3}, "db": db})
	end := daptest.Expect[*dap.ProgressEndEvent](t, c)
	out := c.Output()
	for _, want := range []string{"checked TwoPhase (RM=3) in github.com/cmc-go/cmc/examples/twophase (bfs)\n288 states", "complete", "no violation"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary %q lacks %q", out, want)
		}
	}
	if !strings.Contains(end.Body.Message, "288 states") {
		t.Errorf("progress end %q", end.Body.Message)
	}
}
