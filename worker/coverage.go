package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/coverage"
)

// coverageFrom is the first number of transitions a coverage snapshot is taken at; later ones
// are at every power of two after it, so a run of any length has a few dozen at most, at the
// same transitions in every run of the same search.
const coverageFrom = 4096

// A coverageRecorder writes the worker's coverage counters (the worker was built with
// go build -cover, internal/coord/cover.go) into dir, one subdirectory per snapshot named by the
// transitions run so far; the coordinator reads them with go tool covdata.
type coverageRecorder struct {
	dir  string
	next int64
}

func newCoverageRecorder(dir string) *coverageRecorder {
	return &coverageRecorder{dir: dir, next: coverageFrom}
}

// progress takes a snapshot when the run passes the next power of two.
func (c *coverageRecorder) progress(transitions int64) error {
	if transitions < c.next {
		return nil
	}
	for c.next <= transitions {
		c.next *= 2
	}
	return c.snapshot(transitions)
}

// snapshot writes the counters as they are after transitions.
func (c *coverageRecorder) snapshot(transitions int64) error {
	dir := filepath.Join(c.dir, SnapshotDir(transitions))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write coverage: %w", err)
	}
	if err := coverage.WriteMetaDir(dir); err != nil {
		return fmt.Errorf("write coverage (is the worker built with -cover?): %w", err)
	}
	if err := coverage.WriteCountersDir(dir); err != nil {
		return fmt.Errorf("write coverage: %w", err)
	}
	return nil
}

// SnapshotDir names the subdirectory of a coverage snapshot after transitions: the names sort
// in the order of the run.
func SnapshotDir(transitions int64) string { return fmt.Sprintf("t%019d", transitions) }
