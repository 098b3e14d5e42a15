package views

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
	_ "github.com/cmc-go/cmc/test/views/model" // registers ViewsDemo
)

// storedTrace checks the browser tests' model and stores its violation.
func storedTrace(t *testing.T) (*store.Store, int64, *engine.Trace) {
	t.Helper()
	params := map[string]string{"nodes": "3"}
	m, err := cmc.Build("ViewsDemo", params)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Check(context.Background(), m, engine.Options{})
	if err != nil || len(res.Violations) == 0 {
		t.Fatalf("check: %v, %d violations", err, len(res.Violations))
	}
	tr := res.Violations[0]
	tr.Params = params
	db, err := store.Open(filepath.Join(t.TempDir(), "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	id, err := db.AddTrace(0, tr, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return db, id, tr
}

type graphFunc func(ctx context.Context, id int64, t *engine.Trace, step int) (*canon.Graph, error)

func (f graphFunc) Graph(ctx context.Context, id int64, t *engine.Trace, step int) (*canon.Graph, error) {
	return f(ctx, id, t, step)
}

func TestStoreSource(t *testing.T) {
	db, id, tr := storedTrace(t)
	src := &StoreSource{DB: db}
	ts, err := src.Traces()
	if err != nil || len(ts) != 1 || ts[0].ID != id || ts[0].Model != "ViewsDemo" || ts[0].Steps != len(tr.Steps) || ts[0].Kind != "invariant" {
		t.Fatalf("traces %+v %v", ts, err)
	}
	last := len(tr.Steps)
	g, note, err := src.GraphNote(id, last)
	if err != nil || note != NoCodeNote {
		t.Fatalf("graph without code: note %q, %v", note, err)
	}
	var roots []string
	for _, o := range g.Objects {
		roots = append(roots, o.Root)
	}
	if strings.Join(roots, " ") != "net A B C" {
		t.Errorf("derived graph roots %v", roots)
	}
	if a := g.Objects[1]; !a.Changed { // the last step is A's receive
		t.Errorf("A not marked changed: %+v", a)
	}
	if _, _, err := src.GraphNote(id, last+1); err == nil {
		t.Error("a step past the end has a graph")
	}

	src.Graphs = graphFunc(func(context.Context, int64, *engine.Trace, int) (*canon.Graph, error) {
		return nil, errors.New("worker is on fire")
	})
	if _, note, _ := src.GraphNote(id, 1); !strings.Contains(note, "worker is on fire") {
		t.Errorf("a failed provider's note: %q", note)
	}
	want := &canon.Graph{Objects: []canon.Object{{ID: 1, Root: "A"}}}
	src.Graphs = graphFunc(func(_ context.Context, gotID int64, got *engine.Trace, step int) (*canon.Graph, error) {
		if gotID != id || got.Model != "ViewsDemo" || step != 2 {
			t.Errorf("provider asked for %d %s step %d", gotID, got.Model, step)
		}
		return want, nil
	})
	if g, note, err := src.GraphNote(id, 2); g != want || note != "" || err != nil {
		t.Errorf("provider's graph: %v %q %v", g, note, err)
	}
}

// TestWorkerGraphs builds the model's package into a worker and draws the real heap after each
// step of the stored trace.
func TestWorkerGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	db, id, tr := storedTrace(t)
	wg := &WorkerGraphs{Dir: ".", Pkg: "../../test/views/model"}
	defer wg.Close()
	src := &StoreSource{DB: db, Graphs: wg}
	last := len(tr.Steps)
	g, note, err := src.GraphNote(id, last)
	if err != nil || note != "" {
		t.Fatalf("graph: note %q, %v", note, err)
	}
	var paths []string
	changed := 0
	for _, o := range g.Objects {
		paths = append(paths, o.Path)
		if o.Changed {
			changed++
		}
	}
	if len(g.Objects) != 17 || !strings.Contains(strings.Join(paths, " "), "A.Peers[1]") || changed == 0 {
		t.Errorf("%d objects, %d changed: %v", len(g.Objects), changed, paths)
	}
	// The graph agrees with the stored state.
	leaves, _ := src.State(id, last)
	if diff := canon.Diff(leaves, g.Leaves()); len(diff) != 0 {
		t.Errorf("graph and stored state differ: %v", diff)
	}
	// Another step of the same trace reuses the open replay.
	if g0, _, err := src.GraphNote(id, 0); err != nil || len(g0.Objects) == 0 {
		t.Errorf("step 0: %v", err)
	}
	// A model the package does not have is an error that says so, and the note shows it.
	bad := *tr
	bad.Model = "NoSuchModel"
	if _, err := wg.Graph(context.Background(), id+100, &bad, 1); err == nil || !strings.Contains(err.Error(), "NoSuchModel") {
		t.Errorf("unknown model: %v", err)
	}
}

// A trace is read from the database once, not for every heap graph: a 100,000-step trace takes
// 0.6 s to read. Every graph of a step gets the same trace.
func TestStoreSourceReadsATraceOnce(t *testing.T) {
	db, id, _ := storedTrace(t)
	var seen []*engine.Trace
	src := &StoreSource{DB: db, Graphs: graphFunc(func(_ context.Context, _ int64, t *engine.Trace, _ int) (*canon.Graph, error) {
		seen = append(seen, t)
		return &canon.Graph{}, nil
	})}
	for step := range 3 {
		if _, _, err := src.GraphNote(id, step); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 3 || seen[0] != seen[1] || seen[1] != seen[2] {
		t.Fatalf("the graphs got %d traces, not one read once: %p", len(seen), seen)
	}
	if _, err := src.Trace(id + 1); err == nil {
		t.Fatal("a trace that is not stored: no error")
	}
}
