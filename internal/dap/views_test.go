package dap

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// fakeViews records what the session shows.
type fakeViews struct {
	mu    sync.Mutex
	shown []int
	goTo  func(traceID int64, step int)
}

func (v *fakeViews) URL() string { return "http://127.0.0.1:1/?token=t" }

func (v *fakeViews) Show(traceID int64, step int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.shown = append(v.shown, step)
}

// TestViews: the views server is announced with a cmc/views event, told every stop, and a click
// in it moves the debugger.
func TestViews(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	id := storeTrace(t, db)
	v := &fakeViews{}
	cfg := Config{OpenViews: func(_ *store.Store, pkg string, goTo func(int64, int)) (Views, error) {
		v.goTo = goTo
		return v, nil
	}}
	c := start(t, cfg)
	initialize(t, c)
	c.LaunchRequest(map[string]any{"trace": id, "db": db})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	ev := daptest.Expect[*daptest.CustomEvent](t, c)
	var body struct{ URL string }
	json.Unmarshal(ev.Body, &body)
	if ev.Event.Event != "cmc/views" || body.URL != v.URL() {
		t.Fatalf("views event %s %s", ev.Event.Event, ev.Body)
	}
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	c.StepBackRequest(1)
	daptest.Expect[*dap.StepBackResponse](t, c)
	daptest.ExpectStopped(t, c, "step")
	// A click in the views: go to step 1.
	v.goTo(id, 1)
	daptest.ExpectStopped(t, c, "goto")
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.shown) != 3 || v.shown[0] != 4 || v.shown[1] != 3 || v.shown[2] != 1 {
		t.Fatalf("shown %v, want [4 3 1]", v.shown)
	}
}

// TestGraph: cmc/graph re-runs the stored trace in a worker and answers with the heap graph of
// the current position, inside a step too.
func TestGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	id := storeTrace(t, db)
	c := start(t, Config{})
	initialize(t, c)
	c.LaunchRequest(map[string]any{"trace": id, "db": db, "program": relayDir(t), "stepInto": "choices"})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	type graph struct {
		Step  int
		Graph struct {
			Objects []struct {
				Root, Path string
				Changed    bool
			}
		}
	}
	// >> cmc/graph, << cmc/graph: the state after #4, B's objects marked changed
	c.Send("cmc/graph", nil)
	var g graph
	daptest.ExpectCustom(t, c, "cmc/graph", &g)
	roots, changed := map[string]bool{}, false
	for _, o := range g.Graph.Objects {
		roots[o.Root] = true
		changed = changed || o.Changed
	}
	if g.Step != 4 || !roots["A"] || !roots["B"] || !roots["net"] || !changed {
		t.Fatalf("graph %+v", g)
	}
	// Inside step 1, at its Choose call.
	c.Send("cmc/gotoStep", map[string]any{"step": 0})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	c.StepInRequest(1)
	daptest.Expect[*dap.StepInResponse](t, c)
	daptest.ExpectStopped(t, c, "step")
	c.Send("cmc/graph", nil)
	daptest.ExpectCustom(t, c, "cmc/graph", &g)
	if g.Step != 1 {
		t.Fatalf("graph inside #1: %+v", g)
	}
	// A step out of range.
	c.Send("cmc/graph", map[string]any{"step": 7})
	daptest.ExpectError(t, c, "step 7 is not in the trace")
}
