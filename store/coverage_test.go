package store

import (
	"errors"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/google/go-cmp/cmp"
)

// A run's coverage, growth and event runs come back as stored; a run checked without -cover
// keeps its event runs and says coverage was not measured.
func TestCoverage(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		cov := &engine.Coverage{Statements: 10, Covered: 7,
			Files: []engine.FileCoverage{{File: "/m/a.go", Statements: 10, Covered: 7, Lines: 8, LinesRun: 6,
				Blocks: []engine.CoverBlock{{StartLine: 3, StartCol: 2, EndLine: 5, EndCol: 9, Stmts: 7, Covered: true}, {StartLine: 6, StartCol: 2, EndLine: 6, EndCol: 20, Stmts: 3}}}},
			Handlers: []engine.HandlerCoverage{{Event: "p.inc", File: "/m/a.go", FirstLine: 2, LastLine: 7, Statements: 10, Covered: 7, Runs: 5}},
			Growth:   []engine.CoveragePoint{{Transitions: 4096, Covered: 5, Lines: 4}, {Transitions: 5000, Covered: 7, Lines: 6}}}
		events := []engine.EventRuns{{Event: "p.inc", Site: "/m/a.go:2", Runs: 5}, {Event: "p.never", Site: "/m/a.go:9"}}
		res := &engine.Result{States: 3, Transitions: 5000, Expanded: 2000, Events: events, Coverage: cov}
		run, _, err := s.AddResult(Run{Model: "m", Start: time.Unix(1, 0)}, res, time.Unix(2, 0))
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Coverage(run)
		if err != nil {
			t.Fatal(err)
		}
		want := &RunCoverage{Run: run, Measured: true, Transitions: 5000, Expanded: 2000, Events: events, Coverage: *cov}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("coverage (-want +got):\n%s", d)
		}
		if got.Branching() != 2.5 {
			t.Errorf("branching %v, want 2.5", got.Branching())
		}

		plain, _, err := s.AddResult(Run{Model: "m"}, &engine.Result{Transitions: 5, Expanded: 5, Events: events}, time.Unix(2, 0))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.Coverage(plain); err != nil || got.Measured || len(got.Events) != 2 || got.Coverage.Files != nil {
			t.Errorf("run without -cover: %+v, %v; want its events, not measured", got, err)
		}
		if id, err := s.LatestCoverage(); err != nil || id != run {
			t.Errorf("latest coverage: run %d, %v; want %d (the later run did not measure it)", id, err, run)
		}
		if _, err := s.Coverage(999); !errors.Is(err, ErrNotFound) {
			t.Errorf("no such run: %v, want ErrNotFound", err)
		}
	})
}

// A database of schema 5 (before coverage) gains the coverage tables when opened; its runs have
// none and say so.
func TestCoverageMigration(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, path := open(t)
		run, err := s.AddRun(Run{Model: "old"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.Exec(`DROP TABLE run_coverage; DROP TABLE coverage_growth`); err != nil {
			t.Fatal(err)
		}
		setVersion(t, s, 5)
		s.Close()
		s, err = Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Coverage(run); !errors.Is(err, ErrNotFound) {
			t.Errorf("coverage of a run stored before: %v, want ErrNotFound", err)
		}
		if _, err := s.LatestCoverage(); !errors.Is(err, ErrNotFound) {
			t.Errorf("latest coverage with none measured: %v, want ErrNotFound", err)
		}
		if err := s.AddCoverage(run, &engine.Result{Events: []engine.EventRuns{{Event: "p.e", Runs: 1}}}); err != nil {
			t.Errorf("add coverage after the migration: %v", err)
		}
	})
}
