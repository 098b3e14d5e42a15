package aodv

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
)

// TestFixFromTheLoop: the fix, checked from states of the loop's trace, as a user re-checks a
// bookmark after fixing the code. From step 12 (the stale RERR just delivered; the fixed code
// ignores it) no violation is reachable; from step 14 the trace no longer replays (step 13 takes
// a packet the fixed code never sent), and the check says so instead of checking something else.
func TestFixFromTheLoop(t *testing.T) {
	tr := record(t, "AODVSpecBug", shortestLoop)
	check := func(steps int) (*engine.Result, error) {
		fixed, err := cmc.Build("AODV", nil)
		if err != nil {
			t.Fatal(err)
		}
		return engine.Check(context.Background(), fixed, engine.Options{From: tr, FromSteps: steps})
	}
	res, err := check(12)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Violations) != 0 || res.States != 30 || !strings.Contains(res.PrefixNote, "from step 12") {
		t.Errorf("from step 12: %d states, complete %v, %d violations, note %q; want 30, complete, none, the states differ from step 12",
			res.States, res.Complete, len(res.Violations), res.PrefixNote)
	}
	if _, err := check(14); err == nil || !strings.Contains(err.Error(), "step 13") {
		t.Errorf("from step 14: %v; want the prefix to stop replaying at step 13", err)
	}
}

// TestCompareWithTheFix: the loop's trace against the same steps in the fixed model, as
// `cmcdap diff` shows them after a re-check: both take the first 11 steps alike; at step 12 the
// stale RERR arrives in both, and the fix keeps A's route valid where the bug invalidated it.
func TestCompareWithTheFix(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bug, err := db.AddTrace(0, record(t, "AODVSpecBug", shortestLoop), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	fix, err := db.AddTrace(0, record(t, "AODV", shortestLoop[:12]), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := service.Compare(db, bug, fix, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.Same != 11 || len(c.Steps) != 5 || c.Steps[0].N != 12 || c.Steps[4].B != nil {
		t.Fatalf("same %d, %d pairs from step %d; want 11 alike, then steps 12-16 (the fix's trace ends at 12)", c.Same, len(c.Steps), c.Steps[0].N)
	}
	if cut, err := service.Compare(db, bug, fix, 2); err != nil || len(cut.Steps) != 2 || cut.More != 3 {
		t.Errorf("limited to 2 pairs: %d pairs, %d more, %v; want 2 and 3 more", len(cut.Steps), cut.More, err)
	}
	var at12 []string
	for _, ch := range c.Steps[0].State {
		at12 = append(at12, ch.Kind+" "+ch.Path+" "+ch.Old+" -> "+ch.New)
	}
	if want := "changed A.routes[Dest=D].Valid false -> true"; !slices.Contains(at12, want) {
		t.Errorf("state after step 12, bug -> fix: %q; want %q among them", at12, want)
	}
}
