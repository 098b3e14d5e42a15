package dap

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/store"
)

// TestCheckCoverage: with "coverage": true the console's summary says how much of the model's
// code the check ran, by file and handler, and the run's coverage is stored.
func TestCheckCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	c := start(t, Config{})
	initialize(t, c)
	checkClean(t, c, map[string]any{"program": "../../examples/twophase", "params": map[string]any{"RM": 3}, "db": db, "coverage": true})
	out := c.Output()
	for _, want := range []string{"coverage of the user's code: 96.2% of statements (51 of 53)", "twophase/twophase.go", "rm0.RMPrepare", "branching: 2.64"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary %q lacks %q", out, want)
		}
	}
	s, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if cov, err := s.Coverage(1); err != nil || !cov.Measured || cov.Coverage.Covered != 51 {
		t.Errorf("stored coverage of run 1: %+v, %v; want 51 statements covered", cov, err)
	}
}
