package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/tracefmt"

	"github.com/cmc-go/cmc/engine"
)

// A request is one message from the page: its id, its op, and the op's arguments beside them in
// the same object ({"id":3,"op":"step","trace":7,"step":2}). The reply carries the id.
type request struct {
	ID int64  `json:"id"`
	Op string `json:"op"`
}

// Reply answers one request: its result, or an error.
type Reply struct {
	ID     int64  `json:"id"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// TraceView is the answer to "trace": what the page shows of a trace as a whole.
type TraceView struct {
	ID        int64             `json:"id"`
	Model     string            `json:"model"`
	Params    map[string]string `json:"params,omitempty"`
	Steps     int               `json:"steps"`
	Violation *engine.Violation `json:"violation,omitempty"`
	Chart     *SeqChart         `json:"chart"`
}

// StepView is the answer to "step": the step's header line, and beside the state what the
// trace says of the step elsewhere: each specification the model refines (spec.go) and the
// conversations with real peers so far (tracefmt.Conversations, as the debugger's Connections
// scope shows them).
type StepView struct {
	Step        int                     `json:"step"`
	Steps       int                     `json:"steps"`
	Proc        string                  `json:"proc,omitempty"`
	Event       string                  `json:"event,omitempty"`
	Site        string                  `json:"site,omitempty"`
	Choices     []engine.Choice         `json:"choices"`
	Notes       []engine.Note           `json:"notes"`
	Specs       []SpecView              `json:"specs,omitempty"`
	Connections []tracefmt.Conversation `json:"connections,omitempty"` // after steps 1..step
}

// GotoResult is the answer to "goto": whether the page should move by itself (standalone) or
// wait for the debugger's Show.
type GotoResult struct {
	Navigate bool `json:"navigate"`
}

// handle serves one request. A panic in it is a bug of ours: it becomes an error reply, and the
// connection lives on.
func (s *Server) handle(b []byte) (out []byte) {
	var req request
	if err := json.Unmarshal(b, &req); err != nil {
		out, _ = json.Marshal(Reply{Error: "bad request: " + err.Error()})
		return out
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("views request panicked", "layer", "views", "op", req.Op, "panic", r, "stack", string(debug.Stack()))
			out, _ = json.Marshal(Reply{ID: req.ID, Error: fmt.Sprintf("internal error: %v", r)})
		}
	}()
	res, err := s.serve(req.Op, b)
	rep := Reply{ID: req.ID, Result: res}
	if err != nil {
		rep = Reply{ID: req.ID, Error: err.Error()}
	}
	out, err = encode(rep)
	if err != nil {
		out, _ = json.Marshal(Reply{ID: req.ID, Error: "encode reply: " + err.Error()})
	}
	return out
}

// encode marshals without escaping <, > and &: the DOT text is full of them, and escaped it
// would grow by half.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// serve answers op, its arguments decoded from the whole request b.
func (s *Server) serve(op string, b []byte) (any, error) {
	o, ok := ops[op]
	if !ok {
		return nil, fmt.Errorf("unknown op %q: want one of %s", op, strings.Join(slices.Sorted(maps.Keys(ops)), ", "))
	}
	return o.serve(s, b)
}

func (s *Server) opTraces(struct{}) ([]TraceInfo, error) {
	ts, err := s.src.Traces()
	if ts == nil {
		ts = []TraceInfo{}
	}
	return ts, err
}

func (s *Server) opTrace(a traceArgs) (TraceView, error) {
	e, err := s.trace(a.Trace)
	if err != nil {
		return TraceView{}, err
	}
	t := e.t
	return TraceView{ID: a.Trace, Model: t.Model, Params: t.Params, Steps: len(t.Steps), Violation: t.Violation, Chart: e.chart}, nil
}

// compareSteps bounds the pairs of steps a comparison sends: two long traces that part early
// differ at every step after.
const compareSteps = 200

func (s *Server) opCompare(a compareArgs) (service.Comparison, error) {
	return service.CompareIn(s.src, a.A, a.B, compareSteps)
}

func (s *Server) opStep(a stepArgs) (StepView, error) {
	e, err := s.traceStep(a.Trace, a.Step)
	if err != nil {
		return StepView{}, err
	}
	v := StepView{Step: a.Step, Steps: len(e.t.Steps), Choices: []engine.Choice{}, Notes: []engine.Note{}}
	if a.Step > 0 {
		st := e.t.Steps[a.Step-1]
		v.Proc, v.Event, v.Site = st.Proc, st.Event, st.Site
		v.Choices = append(v.Choices, st.Choices...)
		v.Notes = append(v.Notes, st.Notes...)
	}
	if names := tracefmt.Specs(e.t); len(names) > 0 { // the specs' state: rows of the diff's
		rows, err := s.diffRows(a.Trace, a.Step)
		if err != nil {
			return StepView{}, err
		}
		v.Specs = specViews(e.t, names, a.Step, rows)
	}
	v.Connections = tracefmt.Conversations(e.t, a.Step)
	return v, nil
}

func (s *Server) opHeap(a heapArgs) (HeapView, error) {
	g, err := s.graph(a.Trace, a.Step)
	if err != nil {
		return HeapView{}, err
	}
	e, err := s.traceStep(a.Trace, a.Step)
	if err != nil {
		return HeapView{}, err
	}
	var st *engine.Step
	if a.Step > 0 {
		st = &e.t.Steps[a.Step-1]
	}
	v := Heap(g.g, a.Graph, st)
	if g.note != "" {
		v.Note = joinNotes(g.note, v.Note)
	}
	return v, nil
}

func (s *Server) opDiff(a diffArgs) (DiffView, error) {
	rows, err := s.diffRows(a.Trace, a.Step)
	if err != nil {
		return DiffView{}, err
	}
	return FilterDiff(rows, a.Diff), nil
}

func (s *Server) opGoto(a stepArgs) (GotoResult, error) {
	if _, err := s.traceStep(a.Trace, a.Step); err != nil {
		return GotoResult{}, err
	}
	if f := s.OnGoto; f != nil {
		f(a.Trace, a.Step)
		return GotoResult{Navigate: false}, nil
	}
	return GotoResult{Navigate: true}, nil
}

func joinNotes(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

func (s *Server) trace(id int64) (*traceEntry, error) {
	if e, ok := s.traces.get(id); ok {
		return e, nil
	}
	t, err := s.src.Trace(id)
	if err != nil {
		return nil, err
	}
	e := &traceEntry{t: t, chart: Chart(t)}
	s.traces.put(id, e)
	return e, nil
}

func (s *Server) traceStep(id int64, step int) (*traceEntry, error) {
	e, err := s.trace(id)
	if err != nil {
		return nil, err
	}
	if step < 0 || step > len(e.t.Steps) {
		return nil, fmt.Errorf("trace %d has steps 0 to %d, not %d", id, len(e.t.Steps), step)
	}
	return e, nil
}

func (s *Server) graph(id int64, step int) (*graphEntry, error) {
	k := stepKey{id, step}
	if g, ok := s.graphs.get(k); ok {
		return g, nil
	}
	if _, err := s.traceStep(id, step); err != nil {
		return nil, err
	}
	var e graphEntry
	var err error
	if ns, ok := s.src.(NotedSource); ok {
		e.g, e.note, err = ns.GraphNote(id, step)
	} else {
		e.g, err = s.src.Graph(id, step)
	}
	if err != nil {
		return nil, err
	}
	s.graphs.put(k, &e)
	return &e, nil
}

func (s *Server) diffRows(id int64, step int) ([]DiffRow, error) {
	k := stepKey{id, step}
	if rows, ok := s.diffs.get(k); ok {
		return rows, nil
	}
	e, err := s.traceStep(id, step)
	if err != nil {
		return nil, err
	}
	leaves, err := s.src.State(id, step)
	if err != nil {
		return nil, err
	}
	rows := StateDiff(leaves, changesAt(e.t, step))
	s.diffs.put(k, rows)
	return rows, nil
}
