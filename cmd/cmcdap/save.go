package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/store"
)

// traceDB is the check command's view of the trace store.
type traceDB struct {
	*store.Store
	path string
}

// openStore opens the trace database: path, or .cmc/traces.db in the current directory.
func openStore(path string) (*traceDB, error) {
	if path == "" {
		path = store.DefaultPath(".")
	}
	s, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	return &traceDB{Store: s, path: path}, nil
}

// bookmarkTrace resolves a bookmark to the trace holding it and the step it names.
func (db *traceDB) bookmarkTrace(name string) (*engine.Trace, int, error) {
	b, err := db.BookmarkByName(name)
	if err != nil {
		return nil, 0, err
	}
	t, _, err := db.Trace(b.Trace)
	if err != nil {
		return nil, 0, fmt.Errorf("bookmark %s: %w", name, err)
	}
	return t, b.Step, nil
}

// saveRun stores the run and its traces and returns the traces' ids.
func (db *traceDB) saveRun(pkg *coord.Package, f *checkFlags, res *engine.Result, start time.Time, elapsed time.Duration) ([]int64, error) {
	settings, _ := json.Marshal(struct {
		Search   string `json:"search"`
		Depth    int    `json:"depth,omitempty"`
		States   int64  `json:"states,omitempty"`
		Steps    int    `json:"steps,omitempty"`
		Seed     uint64 `json:"seed,omitempty"`
		All      bool   `json:"all,omitempty"`
		Exact    bool   `json:"exact,omitempty"`
		Bookmark string `json:"bookmark,omitempty"`
	}{f.opts.Search, f.opts.MaxDepth, f.opts.MaxStates, f.opts.Steps, f.opts.Seed, f.opts.All, f.opts.Exact, f.bookmark})
	run := store.Run{Model: f.model, Package: pkg.Dir, Params: f.params, Settings: settings, Code: pkg.CodeID,
		Start: start, End: start.Add(elapsed)}
	_, ids, err := db.AddResult(run, res, run.End)
	return ids, err
}
