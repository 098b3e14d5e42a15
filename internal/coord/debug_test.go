package coord

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
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

var aodvLoop struct {
	once      sync.Once
	p         *Package
	tr        *engine.Trace
	bin, dbin string
	err       error
}

// loop is the AODV example built (as a worker and for a debugger) and its routing loop as
// depth-first search finds it in a few seconds: 20 steps, A receiving B's stale RERR at step 17.
func loop(t testing.TB) (*Package, *engine.Trace, string, string) {
	t.Helper()
	l := &aodvLoop
	l.once.Do(func() {
		ctx := context.Background()
		if l.p, l.err = Resolve(ctx, ".", "../../examples/aodv"); l.err != nil {
			return
		}
		if l.bin, l.err = Build(ctx, l.p); l.err != nil {
			return
		}
		res, err := Check(ctx, l.bin, &worker.Request{Op: "check", Model: "AODVSpecBug", Check: &worker.CheckOptions{Search: "dfs", MaxDepth: 200}}, nil, nil)
		if err != nil || len(res.Violations) == 0 {
			l.err = fmt.Errorf("no loop to debug: %v", err)
			return
		}
		l.tr = res.Violations[0]
		if got := l.tr.Steps[16]; got.Proc != "A" || got.Event != "receive" {
			l.err = fmt.Errorf("step 17 is %s.%s, not A.receive", got.Proc, got.Event)
			return
		}
		l.dbin, l.err = BuildDebug(ctx, l.p)
	})
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.p, l.tr, l.bin, l.dbin
}

// TestDebugStep runs step 17 of the AODV routing loop (A receives B's stale RERR) under Delve:
// it stops on a breakpoint in rerr.go, reads a local there, steps out of the handler, and the
// step ends having reached the stored state.
func TestDebugStep(t *testing.T) {
	dlv := delve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, tr, _, dbin := loop(t)
	d, err := DebugStep(ctx, dlv, dbin, p.Dir, worker.StepArgs{Model: "AODVSpecBug", Trace: tr, Step: 17}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rerr := filepath.Join(p.Dir, "rerr.go")
	st, err := d.Enter(ctx, []dap.SetBreakpointsArguments{{Source: dap.Source{Path: rerr}, Breakpoints: []dap.SourceBreakpoint{{Line: 49}}}}, true)
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
	if got := v.(*dap.EvaluateResponse).Body.Result; got != "1 = 0x1" {
		t.Errorf("from = %s, want 1 (B)", got)
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

// BenchmarkDebugStep is how long Step Into the code takes once the debug build is cached: start
// Delve, replay the steps before the step in the debug build, stop in the handler (and end it).
// Its steps are those of the replay benchmark's 100,000-step random walk of the fixed AODV model;
// the step entered is the 20th or the last.
func BenchmarkDebugStep(b *testing.B) {
	dlv, err := FindDelve(os.Getenv("CMC_DLV"))
	if err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	p, _, bin, dbin := loop(b)
	params := map[string]string{"requests": "-1", "faults": "-1", "seq": "1000000", "rreq": "1000000", "forget": "true"}
	res, err := Check(ctx, bin, &worker.Request{Op: "check", Model: "AODV", Params: params,
		Check: &worker.CheckOptions{Search: "random", Steps: 100_000, Seed: 1, Keep: true}}, nil, nil)
	if err != nil || res.Walk == nil {
		b.Fatalf("no walk: %v", err)
	}
	for _, step := range []int{20, len(res.Walk.Steps)} {
		b.Run(fmt.Sprintf("step=%d", step), func(b *testing.B) {
			for b.Loop() {
				d, err := DebugStep(ctx, dlv, dbin, p.Dir, worker.StepArgs{Model: "AODV", Params: params, Trace: res.Walk, Step: step}, nil)
				if err != nil {
					b.Fatal(err)
				}
				st, err := d.Enter(ctx, nil, true)
				d.Close()
				if err != nil || st.Done {
					b.Fatalf("enter: %+v %v", st, err)
				}
			}
		})
	}
}

// TestDebugStepSaysTheStateDiffers: when a step under Delve reaches another state than the
// stored trace's (here the stored hash is wrong; in use, something changed the state while the
// user was stopped), its end says so instead of passing it off as the trace's.
func TestDebugStepSaysTheStateDiffers(t *testing.T) {
	dlv := delve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, tr, _, dbin := loop(t)
	bad := *tr
	bad.Steps = slices.Clone(tr.Steps)
	bad.Steps[16].Hash ^= 1
	d, err := DebugStep(ctx, dlv, dbin, p.Dir, worker.StepArgs{Model: "AODVSpecBug", Trace: &bad, Step: 17}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := d.Enter(ctx, nil, false) // no breakpoint: the step runs to its end
	if err != nil {
		t.Fatal(err)
	}
	if !st.Done || !strings.Contains(st.Result, "step 17 reached another state than the stored trace's") {
		t.Fatalf("the end of the step: %+v", st)
	}
}

// TestScanLines finds the steps of the AODV loop that run lines of the protocol code: in
// rerr.go the copy of a stale RERR's sequence number (only in step 17, A receiving B's RERR) and
// recvRERR's first line (every step that delivers an RERR); Router.Receive's
// first line (every step that delivers a message); and none for a comment line.
func TestScanLines(t *testing.T) {
	dlv := delve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, tr, _, dbin := loop(t)
	var rerrs, delivered []int
	for i, st := range tr.Steps {
		for _, n := range st.Notes {
			if n.Kind == "deliver" {
				delivered = append(delivered, i+1)
				if strings.HasPrefix(strings.TrimPrefix(n.Msg, "{"), "RERR") {
					rerrs = append(rerrs, i+1)
				}
			}
		}
	}
	rerr := filepath.Join(p.Dir, "rerr.go")
	copyLine, first, nothing := Line{rerr, 49}, Line{rerr, 39}, Line{rerr, 30}
	receive := Line{filepath.Join(p.Dir, "router.go"), 111}
	steps, err := ScanLines(ctx, dlv, dbin, p.Dir, tr, "AODVSpecBug", len(tr.Steps), []Line{copyLine, first, nothing, receive}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("RERRs delivered in steps %v; scan: %v", rerrs, steps)
	if got := steps[copyLine]; len(got) != 1 || got[0] != 17 {
		t.Errorf("rerr.go:49 ran in steps %v, want [17]", got)
	}
	if got := steps[first]; len(rerrs) == 0 || !slices.Equal(got, rerrs) {
		t.Errorf("rerr.go:39 ran in steps %v, want the RERR deliveries %v", got, rerrs)
	}
	if got := steps[receive]; len(delivered) < 5 || !slices.Equal(got, delivered) {
		t.Errorf("router.go:111 (Receive) ran in steps %v, want every delivery %v", got, delivered)
	}
	if got, ok := steps[nothing]; !ok || len(got) != 0 {
		t.Errorf("a comment line ran in steps %v (listed %v)", got, ok)
	}
}

// BenchmarkDebugNext is one line step (next) inside step 17 of the AODV loop under Delve: "cmc"
// as the session relays it (Delve's next, then the stack to see where it stopped), "delve" the
// next request and its stopped event alone.
func BenchmarkDebugNext(b *testing.B) {
	dlv, err := FindDelve(os.Getenv("CMC_DLV"))
	if err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	p, tr, _, dbin := loop(b)
	for _, raw := range []bool{false, true} {
		name := map[bool]string{false: "cmc", true: "delve"}[raw]
		b.Run(name, func(b *testing.B) {
			var d *Debugger
			var st Stop
			enter := func() {
				if d != nil {
					d.Close()
				}
				if d, err = DebugStep(ctx, dlv, dbin, p.Dir, worker.StepArgs{Model: "AODVSpecBug", Trace: tr, Step: 17}, nil); err != nil {
					b.Fatal(err)
				}
				if st, err = d.Enter(ctx, nil, true); err != nil {
					b.Fatal(err)
				}
			}
			enter()
			b.ResetTimer()
			for i := range b.N {
				next := &dap.NextRequest{Request: request("next"), Arguments: dap.NextArguments{ThreadId: st.Thread}}
				if raw && i%8 != 7 {
					if _, err := d.c.Do(ctx, next); err != nil {
						b.Fatal(err)
					}
					if e, err := d.nextStop(ctx); err != nil || e == nil {
						b.Fatalf("no stop: %v", err)
					}
					continue
				}
				// Every 8th raw step goes through Resume too, to notice the end of the handler.
				if st, err = d.Resume(ctx, next); err != nil {
					b.Fatal(err)
				}
				if st.Done {
					b.StopTimer()
					enter() // the handler returned: into the step again, off the clock
					b.StartTimer()
				}
			}
			d.Close()
		})
	}
}

// TestGoBinDirs: dlv is looked for where go install puts it, GOBIN when set, else GOPATH/bin
// (go env prints an empty line for an unset GOBIN).
func TestGoBinDirs(t *testing.T) {
	for _, c := range []struct {
		out  string
		want []string
	}{
		{"\n/root/go\n", []string{"/root/go/bin"}},
		{"/opt/bin\n/root/go\n", []string{"/opt/bin"}},
		{"\n/a" + string(filepath.ListSeparator) + "/b\n", []string{"/a/bin", "/b/bin"}},
		{"", nil},
	} {
		if got := goBinDirs(c.out); !slices.Equal(got, c.want) {
			t.Errorf("goBinDirs(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}
