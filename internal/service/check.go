package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/worker"
)

// A Check is one check of a model: which, with what parameters, how, and from where.
type Check struct {
	Model    string
	Params   map[string]string
	Settings RunSettings
	// From is the trace a bookmarked state is in; the check starts after its first
	// Settings.FromSteps steps. Nil: from the initial state.
	From *engine.Trace
}

// Check runs c in a fresh worker. A transition that hangs or kills the worker is reported as a
// violation with its trace (see coord.Check). The model's output goes to out.
func (p *Program) Check(ctx context.Context, c *Check, progress func(engine.Progress), out Output) (*engine.Result, error) {
	req := &worker.Request{Model: c.Model, Params: c.Params, Check: c.Settings.options(c.From)}
	if c.Settings.Coverage {
		if err := p.Cover(ctx, c.Settings.CoverPackages); err != nil {
			return nil, err
		}
		return coord.CheckCover(ctx, p.cover, req, progress, out)
	}
	return coord.Check(ctx, p.bin, req, progress, out)
}

// Try builds c's model with its parameters and replays its bookmark's prefix, checking one state:
// what is wrong with the configuration shows before a long check starts.
func (p *Program) Try(ctx context.Context, c *Check, out Output) error {
	o := c.Settings.options(c.From)
	try := &worker.CheckOptions{MaxStates: 1, From: o.From, FromSteps: o.FromSteps}
	_, err := coord.Check(ctx, p.bin, &worker.Request{Model: c.Model, Params: c.Params, Check: try}, nil, out)
	return err
}

// StartFrom makes c start from bookmark b of db: the check's model and parameters default to
// those of the bookmarked trace. Another model of the program may start there too (the fixed
// variant of a model, as AODV is of AODVSpecBug): the bookmark's steps are replayed in it, by
// process, event and Choose values, and Try says where they no longer replay.
func (c *Check) StartFrom(db *store.Store, b store.Bookmark) error {
	t, _, err := db.Trace(b.Trace)
	if err != nil {
		return fmt.Errorf("bookmark %s: %w", b.Name, err)
	}
	if c.Model == "" {
		c.Model = t.Model
	}
	if c.Params == nil {
		c.Params = t.Params
	}
	c.Settings.Bookmark = b.Name
	c.From, c.Settings.FromSteps = nil, 0
	if b.Step > 0 { // from step 0 is from the initial state: no prefix
		c.From, c.Settings.FromSteps = t, b.Step
	}
	return nil
}

// Bookmark finds bookmark name in db; not found, the error lists the bookmarks there are.
func Bookmark(db *store.Store, name string) (store.Bookmark, error) {
	b, err := db.BookmarkByName(name)
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return b, err
	}
	all, lerr := db.Bookmarks()
	if lerr != nil {
		return b, err
	}
	names := make([]string, len(all))
	for i, b := range all {
		names[i] = b.Name
	}
	list := strings.Join(names, ", ")
	if list == "" {
		list = "(none)"
	}
	return b, fmt.Errorf("%w; the bookmarks are: %s", err, list)
}

// Save stores a check's run and its traces (the violations, then a kept random walk) and returns
// the run's id and the traces' ids: a trace found before along the same steps keeps its id (see
// store.AddTrace; NewReport says so). Every front end stores the same record: the package by
// import path and the settings as a RunSettings.
func Save(db *store.Store, pkg *Package, c *Check, res *engine.Result, start, end time.Time) (runID int64, ids []int64, err error) {
	run := store.Run{Model: c.Model, Package: pkg.ImportPath, Params: c.Params, Settings: c.Settings.json(),
		Code: pkg.CodeID, Start: start, End: end}
	return db.AddResult(run, res, end)
}

// OtherTraces are the stored ids of the walk and of each scenario's trace (0: none, or not
// stored), from the ids Save returned for res (the ids of res.Traces()).
func OtherTraces(res *engine.Result, ids []int64) (walk int64, scenarios []int64) {
	at := func(i int) int64 {
		if i < len(ids) {
			return ids[i]
		}
		return 0
	}
	next := len(res.Violations)
	if res.Walk != nil {
		walk = at(next)
		next++
	}
	for _, sc := range res.Scenarios {
		var id int64
		if sc.Trace != nil {
			id = at(next)
			next++
		}
		scenarios = append(scenarios, id)
	}
	return walk, scenarios
}
