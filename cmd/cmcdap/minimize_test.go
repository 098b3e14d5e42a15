package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/replay"
	"github.com/cmc-go/cmc/store"
)

// TestMinimizeAndExport is a user's way with a long trace: a random walk finds the violation in
// 38 steps; minimize stores a 6-step trace linked to it (and says a minimal one is minimal);
// export-test writes a Go test that go test runs and passes while the bug is there.
func TestMinimizeAndExport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries and runs go test")
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "traces.db")
	f := checkFlags{params: settings{}, quiet: true, db: db, run: service.RunSettings{Search: "random", Seed: 1, Steps: 1000}}
	var out, errb bytes.Buffer
	if code, err := check(ctx, &f, "./testdata/walk", &out, &errb); code != 1 || err != nil {
		t.Fatalf("check: exit %d, %v\n%s%s", code, err, out.String(), errb.String())
	}

	out.Reset()
	rf := &replayFlags{db: db, pkg: "./testdata/walk", states: replay.MinimizeStates}
	if err := minimize(ctx, rf, 1, &out); err != nil {
		t.Fatal(err)
	}
	want := "minimizing trace 1 (Walk): 38 steps, invariant NotBoth3: a and b are both 3\n" +
		"stored trace 2: 6 steps, the shortest to the same violation (cmcdap trace show 2)\n"
	if out.String() != want {
		t.Errorf("minimize said:\n%swant:\n%s", out.String(), want)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ti, err := st.TraceInfo(2)
	st.Close()
	if err != nil || ti.From != 1 || ti.How != store.Minimized || ti.Length != 6 || ti.Signature != "invariant:NotBoth3" {
		t.Fatalf("trace 2: %+v, %v; want 6 steps minimized from trace 1, the same signature", ti, err)
	}
	out.Reset()
	if code := tracesCommand([]string{"-db", db}, &out, &errb); code != 0 || !strings.Contains(out.String(), "(minimized from 1) a and b are both 3") {
		t.Errorf("traces: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := traceShowCommand([]string{"-db", db, "2"}, &out, &errb); code != 0 || !strings.Contains(out.String(), ", minimized from trace 1\n") {
		t.Errorf("trace show 2: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if err := minimize(ctx, rf, 2, &out); err != nil || !strings.Contains(out.String(), "trace 2 (Walk) is minimal already: the shortest") {
		t.Errorf("minimizing the minimal trace: %v\n%s", err, out.String())
	}
	// With no room to search, steps are deleted, and the message says a shorter trace may exist.
	out.Reset()
	cut := *rf
	cut.states = 1
	if err := minimize(ctx, &cut, 1, &out); err != nil || !strings.Contains(out.String(), "no step of it can be deleted; breadth-first search stopped at 1 states") {
		t.Errorf("minimizing by deleting steps: %v\n%s", err, out.String())
	}
	// An editor reads the outcome as JSON, and words "search further" in its own terms.
	out.Reset()
	cut.jsonOut = true
	if err := minimize(ctx, &cut, 2, &out); err != nil || out.String() != `{"trace":2,"steps":6,"short_steps":6,"shortest":false,"states":1}`+"\n" {
		t.Errorf("minimize -json of a minimal trace, search bounded: %v\n%s", err, out.String())
	}

	// Export into a copy of the package, inside this module, and run its tests.
	dir, err := os.MkdirTemp("testdata", "export-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src, err := os.ReadFile("testdata/walk/walk.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "walk.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	rf.pkg = "./" + filepath.ToSlash(dir)
	file := filepath.Join(dir, "walk_trace_test.go")
	out.Reset()
	if err := exportTest(ctx, rf, 2, file, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "wrote "+file+": go test ") {
		t.Errorf("export-test said %q", out.String())
	}
	// The exported test names no absolute path: its sites (the trace was checked in testdata/walk)
	// are relative to the module.
	exported, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	module, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(exported), module) || !strings.Contains(string(exported), `"site":"cmd/cmcdap/testdata/walk/walk.go:`) {
		t.Errorf("the exported test names an absolute path, or not its sites relative to the module %s:\n%s", module, exported)
	}
	if err := exportTest(ctx, rf, 2, file, &out); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("exporting over an existing file: %v; want a refusal", err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-v", rf.pkg)
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "--- PASS: TestTraceWalkNotBoth3") {
		t.Fatalf("go test of the exported trace: %v\n%s", err, b)
	}
}
