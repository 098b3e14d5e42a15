package coord

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/worker"
	"github.com/google/go-dap"
)

// delve finds dlv for a test: CMC_DLV (the Makefile installs a pinned one), else as cmcdap
// finds it. Under CI (CMC_REQUIRE_DLV=1) a missing Delve fails the test instead of skipping it.
func delve(t *testing.T) string {
	t.Helper()
	dlv, err := FindDelve(os.Getenv("CMC_DLV"))
	if err != nil {
		if os.Getenv("CMC_REQUIRE_DLV") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return dlv
}

// TestDebugStep runs step 12 of the AODV routing loop (A receives C's stale RERR) under Delve:
// it stops on a breakpoint in rerr.go, reads a local there, steps out of the handler, and the
// step ends having reached the stored state.
func TestDebugStep(t *testing.T) {
	dlv := delve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := Resolve(ctx, ".", "../../examples/aodv")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Build(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(ctx, bin, &worker.Request{Op: "check", Model: "AODVSpecBug", Check: &worker.CheckOptions{Search: "bfs"}}, nil, nil)
	if err != nil || len(res.Violations) == 0 {
		t.Fatalf("no loop to debug: %v", err)
	}
	tr := res.Violations[0]
	if got := tr.Steps[11]; got.Proc != "A" || got.Event != "receive" {
		t.Fatalf("step 12 is %s.%s, not A.receive", got.Proc, got.Event)
	}
	dbin, err := BuildDebug(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	d, err := DebugStep(ctx, dlv, dbin, p.Dir, worker.StepArgs{Model: "AODVSpecBug", Trace: tr, Step: 12}, func(stream, line string) { out = append(out, line) })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rerr := filepath.Join(p.Dir, "rerr.go")
	st, err := d.Enter(ctx, []dap.SetBreakpointsArguments{{Source: dap.Source{Path: rerr}, Breakpoints: []dap.SourceBreakpoint{{Line: 49}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("handler %s; stopped: %+v", d.Handler, st)
	if top, err := d.Frames(ctx, st.Thread); err != nil || len(top) != 1 || !sameFunc(top[0].Name, d.Handler) {
		t.Fatalf("entering the step stopped at %v (%v), want the handler's first line", top, err)
	}
	st, err = d.Resume(ctx, &dap.ContinueRequest{Request: request("continue"), Arguments: dap.ContinueArguments{ThreadId: st.Thread}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Done || st.Reason != "breakpoint" {
		t.Fatalf("stop %+v, want the breakpoint in rerr.go", st)
	}
	frames, err := d.Frames(ctx, st.Thread)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range frames {
		names = append(names, f.Name)
	}
	t.Logf("frames: %s", strings.Join(names, " < "))
	if !strings.HasSuffix(frames[0].Name, "recvRERR") || frames[0].Line != 49 || !sameFunc(frames[len(frames)-1].Name, d.Handler) {
		t.Fatalf("frames %v: want recvRERR at line 49 on top and the handler at the bottom", names)
	}
	v, err := d.Do(ctx, &dap.EvaluateRequest{Request: request("evaluate"), Arguments: dap.EvaluateArguments{Expression: "from", FrameId: frames[0].Id}})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.(*dap.EvaluateResponse).Body.Result; got != "2 = 0x2" {
		t.Errorf("from = %s, want 2 (C)", got)
	}
	for i := 0; ; i++ {
		st, err = d.Resume(ctx, &dap.StepOutRequest{Request: request("stepOut"), Arguments: dap.StepOutArguments{ThreadId: st.Thread}})
		if err != nil {
			t.Fatal(err)
		}
		if st.Done || i > 10 {
			break
		}
	}
	if !st.Done || st.Result != "ok" {
		t.Fatalf("after stepping out: %+v, want the step done and its state the stored one", st)
	}
}
