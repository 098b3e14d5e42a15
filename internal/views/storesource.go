package views

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
)

// StoreSource is a Source over a trace database. Its heap graphs come from Graphs, which runs
// the model's code; without it, or when it fails, they are derived from the stored state
// (LeafGraph) and say why.
type StoreSource struct {
	DB     *store.Store
	Graphs GraphProvider // nil: derived graphs only
	// Timeout bounds one graph from Graphs (the first one builds the worker); 0: 2 minutes.
	Timeout time.Duration
	Log     *slog.Logger

	once   sync.Once
	traces *cache[int64, *engine.Trace] // read once: a 100,000-step trace takes 0.6 s to read
}

// Traces lists the stored traces, oldest first.
func (s *StoreSource) Traces() ([]TraceInfo, error) {
	ts, err := s.DB.Traces(store.TraceQuery{})
	if err != nil {
		return nil, err
	}
	out := make([]TraceInfo, len(ts))
	for i, t := range ts {
		out[i] = TraceInfo{ID: t.ID, Model: t.Model, Params: t.Params, Kind: t.Kind, Message: t.Message, Steps: t.Length, Found: t.Found}
	}
	return out, nil
}

// Trace reads a whole trace, or returns it from the few last read: a stored trace never changes,
// and every heap graph needs it.
func (s *StoreSource) Trace(id int64) (*engine.Trace, error) {
	s.once.Do(func() { s.traces = newCache[int64, *engine.Trace](4) })
	if t, ok := s.traces.get(id); ok {
		return t, nil
	}
	t, _, err := s.DB.Trace(id)
	if err != nil {
		return nil, err
	}
	s.traces.put(id, t)
	return t, nil
}

// State reads the state after a step.
func (s *StoreSource) State(id int64, step int) ([]canon.Leaf, error) { return s.DB.State(id, step) }

// Graph returns the heap graph after a step.
func (s *StoreSource) Graph(id int64, step int) (*canon.Graph, error) {
	g, _, err := s.GraphNote(id, step)
	return g, err
}

// GraphNote returns the heap graph after a step, and a note when it is derived from the stored
// state rather than the model's heap.
func (s *StoreSource) GraphNote(id int64, step int) (*canon.Graph, string, error) {
	t, err := s.Trace(id)
	if err != nil {
		return nil, "", err
	}
	if step < 0 || step > len(t.Steps) {
		return nil, "", fmt.Errorf("trace %d has steps 0 to %d, not %d", id, len(t.Steps), step)
	}
	note := NoCodeNote
	if s.Graphs != nil {
		d := s.Timeout
		if d == 0 {
			d = 2 * time.Minute
		}
		ctx, cancel := context.WithTimeout(context.Background(), d)
		g, err := s.Graphs.Graph(ctx, id, t, step)
		cancel()
		if err == nil {
			return g, "", nil
		}
		if s.Log != nil {
			s.Log.Warn("heap graph from the model's code failed", "layer", "views", "trace", id, "step", step, "err", err)
		}
		note = "heap graph from the model's code failed (" + err.Error() + "); this is the stored state, one node per root"
	}
	leaves, err := s.DB.State(id, step)
	if err != nil {
		return nil, "", err
	}
	return LeafGraph(leaves, changesAt(t, step)), note, nil
}
