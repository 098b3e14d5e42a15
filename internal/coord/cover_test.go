package coord

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
	"golang.org/x/tools/cover"
)

// TestCoverageMatchesGoTest checks a small model with a worker built to measure coverage and
// compares every file's statements, and every block's covered or not, with go test -cover of a
// test that runs the same code paths (testdata/covered/covered_test.go checks the same state
// space in-process).
func TestCoverageMatchesGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary and runs go test")
	}
	ctx := context.Background()
	p, err := Resolve(ctx, ".", "./testdata/covered")
	if err != nil {
		t.Fatal(err)
	}
	target, err := BuildCover(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := CheckCover(ctx, target, &worker.Request{Model: "Covered", Check: &worker.CheckOptions{}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Coverage
	if got == nil {
		t.Fatal("the result has no coverage")
	}

	profile := filepath.Join(t.TempDir(), "cover.out")
	cmd := exec.Command("go", "test", "-count=1", "-covermode=atomic", "-coverpkg="+p.ImportPath, "-coverprofile="+profile, ".")
	cmd.Dir = p.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -cover: %v\n%s", err, out)
	}
	profs, err := cover.ParseProfiles(profile)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]engine.FileCoverage{}
	for _, prof := range profs {
		f := fileCoverage(prof)
		want[filepath.Join(p.Dir, filepath.Base(prof.FileName))] = f
	}
	if len(got.Files) != len(want) {
		t.Fatalf("%d files covered, go test has %d", len(got.Files), len(want))
	}
	total := 0
	for _, f := range got.Files {
		w, ok := want[f.File]
		if !ok {
			t.Fatalf("file %s is not in go test's profile", f.File)
		}
		if f.Statements != w.Statements || f.Covered != w.Covered {
			t.Errorf("%s: %d of %d statements covered; go test -cover: %d of %d", filepath.Base(f.File), f.Covered, f.Statements, w.Covered, w.Statements)
		}
		for i, b := range f.Blocks {
			if i < len(w.Blocks) && b != w.Blocks[i] {
				t.Errorf("%s: block %+v; go test -cover: %+v", filepath.Base(f.File), b, w.Blocks[i])
			}
		}
		total += w.Statements
	}
	// Not everything was run, or the comparison would say little: the overflow branch, pick's
	// default and unused are not.
	if got.Covered >= got.Statements || got.Statements != total {
		t.Errorf("covered %d of %d statements; want some left, of %d", got.Covered, got.Statements, total)
	}
	handlers := map[string]engine.HandlerCoverage{}
	for _, h := range got.Handlers {
		handlers[h.Event] = h
	}
	// inc runs in the 9 states with N below 3 and never takes its overflow branch; mode runs
	// in all 12 states (N 0-3, Mode "", a or b) with both Choose values.
	if h := handlers["c.inc"]; h.Runs != 9 || h.Covered != 2 || h.Statements != 3 {
		t.Errorf("handler c.inc: %+v; want 2 of 3 statements covered in 9 runs", h)
	}
	if h := handlers["c.mode"]; h.Runs != 24 || h.Covered != 1 || h.Statements != 1 {
		t.Errorf("handler c.mode: %+v; want its one statement covered in 24 runs", h)
	}
	if n := len(got.Growth); n == 0 || got.Growth[n-1].Transitions != res.Transitions || got.Growth[n-1].Covered != got.Covered {
		t.Errorf("growth %+v does not end at the run's %d transitions and %d statements", got.Growth, res.Transitions, got.Covered)
	}
}

// TestCoverageOfMorePackages: packages named besides the user's (a protocol library) are measured
// too, here cmc's own internal/transition, which every handler run enters.
func TestCoverageOfMorePackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	ctx := context.Background()
	p, err := Resolve(ctx, ".", "./testdata/covered")
	if err != nil {
		t.Fatal(err)
	}
	target, err := BuildCover(ctx, p, []string{"github.com/cmc-go/cmc/internal/transition"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := CheckCover(ctx, target, &worker.Request{Model: "Covered", Check: &worker.CheckOptions{}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]int{}
	for _, f := range res.Coverage.Files {
		dirs[filepath.Base(filepath.Dir(f.File))] += f.Covered
	}
	if dirs["transition"] == 0 || dirs["covered"] == 0 {
		t.Errorf("covered statements by directory %v; want some in covered and in transition", dirs)
	}
}
