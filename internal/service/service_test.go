package service

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
)

// TestSaveOneRecord: a run stores the package by import path and its settings under the names
// RunSettings gives them, whichever front end filled them.
func TestSaveOneRecord(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pkg := &Package{Dir: "/src/aodv", ImportPath: "example.com/aodv", CodeID: "abc"}
	c := &Check{Model: "AODV", Params: map[string]string{"nodes": "3"}, Settings: DefaultSettings()}
	c.Settings.MaxDepth, c.Settings.MaxStates = 12, 1000
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, _, err := Save(db, pkg, c, &engine.Result{States: 7}, start, start.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	run, err := db.Run(1)
	if err != nil {
		t.Fatal(err)
	}
	if run.Package != "example.com/aodv" || run.Code != "abc" || run.States != 7 {
		t.Errorf("run = %+v", run)
	}
	var got map[string]any
	if err := json.Unmarshal(run.Settings, &got); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"search": "bfs", "max_depth": 12.0, "max_states": 1000.0, "steps": 10000.0,
		"seed": 1.0, "deadline": 10.0, "self_check": float64(engine.DefaultSelfCheck)} {
		if got[k] != want {
			t.Errorf("settings[%q] = %v, want %v (all: %s)", k, got[k], want, run.Settings)
		}
	}
	var back RunSettings
	if err := json.Unmarshal(run.Settings, &back); err != nil || back != c.Settings {
		t.Errorf("settings read back as %+v, %v; want %+v", back, err, c.Settings)
	}
}

func TestModelErrors(t *testing.T) {
	for _, c := range []struct {
		err  *ModelError
		want string
	}{
		{&ModelError{Package: "p", Kind: NoModel}, "package p defines no model: call cmc.Register(name, build) in an init function"},
		{&ModelError{Package: "p", Kind: ModelMissing, Models: []string{"A", "B"}}, "package p has several models (A, B): choose one"},
		{&ModelError{Package: "p", Kind: ModelUnknown, Models: []string{"A", "B"}, Name: "C"}, `unknown model "C"; this package has: A, B`},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestStartFromAnotherModel: a bookmark of one model is a starting state for another model of
// the program (the fixed variant of the code): its steps become the check's prefix, and the
// model and parameters the check names stay; named nothing, they are the bookmarked trace's.
func TestStartFromAnotherModel(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tr := &engine.Trace{Model: "AODVSpecBug", Params: map[string]string{"nodes": "4"},
		Steps: []engine.Step{{Proc: "A", Event: "request D"}, {Proc: "B", Event: "request D"}}}
	id, err := db.AddTrace(0, tr, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b := store.Bookmark{Trace: id, Step: 1, Name: "before"}
	if b.ID, err = db.AddBookmark(b); err != nil {
		t.Fatal(err)
	}
	fixed := &Check{Model: "AODV", Settings: DefaultSettings()}
	if err := fixed.StartFrom(db, b); err != nil {
		t.Fatal(err)
	}
	if fixed.Model != "AODV" || fixed.Params["nodes"] != "4" || fixed.From == nil || fixed.Settings.FromSteps != 1 || fixed.Settings.Bookmark != "before" {
		t.Errorf("from the bookmark: model %s, params %v, from %v after %d steps, bookmark %q",
			fixed.Model, fixed.Params, fixed.From != nil, fixed.Settings.FromSteps, fixed.Settings.Bookmark)
	}
	same := &Check{Settings: DefaultSettings()}
	if err := same.StartFrom(db, b); err != nil || same.Model != "AODVSpecBug" {
		t.Errorf("no model named: %s, %v; want the bookmarked trace's", same.Model, err)
	}
}
