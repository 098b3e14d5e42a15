package service

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
)

func loopTrace(steps int, lastHash engine.Hash) *engine.Trace {
	t := &engine.Trace{Model: "AODV", InitHash: 1, Violation: engine.NewViolation("invariant", "NoLoop", "routing loop A -> B -> A", "")}
	for i := range steps {
		t.Steps = append(t.Steps, engine.Step{Proc: "B", Event: "receive", Hash: engine.Hash(10 + i)})
	}
	t.Steps[steps-1].Hash = lastHash
	return t
}

// A check reports what it found where the user looks; a check from a bookmark says how it
// compares with the bookmarked trace, and a violation found again along the same steps is the
// trace the user has.
func TestReport(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pkg := &Package{ImportPath: "example.com/aodv"}
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	check := func(c *Check, res *engine.Result) Report {
		t.Helper()
		runID, ids, err := Save(db, pkg, c, res, start, start.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return NewReport(db, c, res, runID, ids, 1500*time.Millisecond)
	}

	first := check(&Check{Model: "AODV"}, &engine.Result{States: 900, Violations: []*engine.Trace{loopTrace(13, 99)}})
	if first.Trace != 1 || first.Known || first.Violation != "invariant NoLoop: routing loop A -> B -> A" || first.Steps != 13 || first.Seconds != 1.5 || first.Comparison != "" {
		t.Errorf("first check: %+v", first)
	}
	if _, err := db.AddBookmark(store.Bookmark{Name: "stale rerr", Trace: 1, Step: 9, Created: start}); err != nil {
		t.Fatal(err)
	}
	from := &Check{Model: "AODV", Settings: RunSettings{Bookmark: "stale rerr", FromSteps: 9}}

	fixed := check(from, &engine.Result{States: 3306004, Complete: true})
	if want := "original: invariant NoLoop: routing loop A -> B -> A at step 13 (trace 1); now: no violation in 3,306,004 states (complete)"; fixed.Comparison != want {
		t.Errorf("after the fix:\n got %q\nwant %q", fixed.Comparison, want)
	}
	if fixed.Bookmark == nil || fixed.Bookmark.Name != "stale rerr" || fixed.Bookmark.Step != 9 || fixed.Trace != 0 || !fixed.Complete {
		t.Errorf("after the fix: %+v", fixed)
	}

	again := check(from, &engine.Result{States: 40, Violations: []*engine.Trace{loopTrace(13, 99)}})
	if !again.Known || again.Trace != 1 || again.KnownRun != 1 ||
		again.Comparison != "original: invariant NoLoop: routing loop A -> B -> A at step 13 (trace 1); now: the same violation along the same steps (trace 1)" {
		t.Errorf("the bug again, the same way: %+v", again)
	}
	if traces, _ := db.Traces(store.TraceQuery{}); len(traces) != 1 {
		t.Errorf("%d traces stored, want the one", len(traces))
	}

	other := check(from, &engine.Result{States: 41, Violations: []*engine.Trace{loopTrace(15, 7)}})
	if other.Known || other.Trace != 2 || other.Comparison != "original: invariant NoLoop: routing loop A -> B -> A at step 13 (trace 1); now: the same violation at step 15 (trace 2)" {
		t.Errorf("the bug again, another way: %+v", other)
	}
	// With -all, each violation found again is known, not only the first.
	all := check(&Check{Model: "AODV"}, &engine.Result{States: 50, Violations: []*engine.Trace{loopTrace(14, 5), loopTrace(15, 7)}})
	if all.Known || len(all.Before) != 1 || all.Before[0] != 2 {
		t.Errorf("-all with the second violation known: known %v, before %v; want only trace 2 before", all.Known, all.Before)
	}
	bounded := check(from, &engine.Result{States: 1000})
	if want := "now: no violation in 1,000 states (not complete: bounded)"; !strings.HasSuffix(bounded.Comparison, want) {
		t.Errorf("bounded: %q, want it to end %q", bounded.Comparison, want)
	}
	if bounded.Coverage != nil {
		t.Errorf("a check that did not measure coverage reports %+v", bounded.Coverage)
	}
	// With "coverage": true the report has the lines of the user's code the check ran.
	covered := check(&Check{Model: "AODV", Settings: RunSettings{Coverage: true}}, &engine.Result{States: 60, Complete: true,
		Coverage: &engine.Coverage{Statements: 30, Covered: 20, Files: []engine.FileCoverage{
			{File: "/w/aodv/router.go", Statements: 20, Covered: 15, Lines: 18, LinesRun: 14},
			{File: "/w/aodv/rerr.go", Statements: 10, Covered: 5, Lines: 9, LinesRun: 4},
		}}})
	if c := covered.Coverage; c == nil || *c != (LineCoverage{Covered: 18, Lines: 27, Files: 2}) || int(c.Percent()) != 66 {
		t.Errorf("coverage %+v, want 18 of 27 lines in 2 files", c)
	}
}
