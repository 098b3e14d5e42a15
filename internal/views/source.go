package views

import (
	"context"
	"time"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// A Source is where the views get their data: stored traces, and the state and heap graph after
// any step (step 0 is the initial state).
type Source interface {
	Traces() ([]TraceInfo, error)
	Trace(id int64) (*engine.Trace, error)
	State(id int64, step int) ([]canon.Leaf, error)
	Graph(id int64, step int) (*canon.Graph, error)
}

// A NotedSource is a Source that can say why a graph is not the model's real heap (a graph
// derived from the stored leaves when the model's code is not at hand). The server asks it
// instead of Graph when the source has it.
type NotedSource interface {
	Source
	GraphNote(id int64, step int) (*canon.Graph, string, error)
}

// TraceInfo describes one stored trace in the trace list.
type TraceInfo struct {
	ID      int64             `json:"id"`
	Model   string            `json:"model"`
	Params  map[string]string `json:"params,omitempty"`
	Kind    string            `json:"kind,omitempty"` // of the violation; "" for a kept walk
	Message string            `json:"message,omitempty"`
	Steps   int               `json:"steps"`
	Found   time.Time         `json:"found,omitzero"`
}

// A GraphProvider makes the heap graph after a step by running the model's code (see
// WorkerGraphs), with the objects the step changed marked.
type GraphProvider interface {
	Graph(ctx context.Context, id int64, t *engine.Trace, step int) (*canon.Graph, error)
}

// NoCodeNote is shown over a graph derived from the stored state.
const NoCodeNote = "heap graph needs the model's code: run from the package dir (cmcdap serve -pkg DIR); this is the stored state, one node per root"

// LeafGraph derives a simple graph from a state's leaves when the model's code is not at hand:
// one object per root holding that root's leaves, the ones changes touched marked.
func LeafGraph(leaves []canon.Leaf, changes []canon.Change) *canon.Graph {
	g := &canon.Graph{Objects: []canon.Object{}}
	index := map[string]int{}
	for _, l := range leaves {
		r := rootOf(l.Path)
		i, ok := index[r]
		if !ok {
			i = len(g.Objects)
			index[r] = i
			g.Objects = append(g.Objects, canon.Object{ID: i + 1, Root: r, Type: "stored state", Path: r})
		}
		name := string(fieldPath(canon.Path(l.Path)))
		if name == "" {
			name = "*"
		}
		g.Objects[i].Fields = append(g.Objects[i].Fields, canon.Value{Name: name, Scalar: l.Value})
	}
	g.Mark(changes)
	return g
}

// changesAt returns the changes step made (none for the initial state).
func changesAt(t *engine.Trace, step int) []canon.Change {
	if step <= 0 || step > len(t.Steps) {
		return nil
	}
	return t.Steps[step-1].Changes
}

// fieldPath is p below its root, without the root's own dereferences: "x[2]" for "(*A).x[2]"
// and for "(*(*A)).x[2]".
func fieldPath(p canon.Path) canon.Path {
	segs := p.Segments()[1:]
	for len(segs) > 0 && segs[0] == canon.Deref {
		segs = segs[1:]
	}
	var rel canon.Path
	for _, s := range segs {
		rel = rel.Child(s)
	}
	return rel
}
