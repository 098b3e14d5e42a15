package views

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// memSource is a Source over traces in memory; states are folded from the trace's changes.
type memSource struct{ traces map[int64]*engine.Trace }

func (m *memSource) Traces() ([]TraceInfo, error) {
	var out []TraceInfo
	for id, t := range m.traces {
		out = append(out, TraceInfo{ID: id, Model: t.Model, Steps: len(t.Steps)})
	}
	return out, nil
}

func (m *memSource) Trace(id int64) (*engine.Trace, error) {
	t, ok := m.traces[id]
	if !ok {
		return nil, fmt.Errorf("no trace %d", id)
	}
	return t, nil
}

func (m *memSource) State(id int64, step int) ([]canon.Leaf, error) {
	t, err := m.Trace(id)
	if err != nil {
		return nil, err
	}
	leaves := t.Init
	for _, s := range t.Steps[:step] {
		leaves = apply(leaves, s.Changes)
	}
	return leaves, nil
}

func apply(leaves []canon.Leaf, cs []canon.Change) []canon.Leaf {
	out := append([]canon.Leaf(nil), leaves...)
	for _, c := range cs {
		switch c.Kind {
		case "added":
			out = append(out, canon.Leaf{Path: c.Path, Value: c.New})
		default:
			for i := range out {
				if out[i].Path == c.Path {
					if c.Kind == "removed" {
						out = append(out[:i], out[i+1:]...)
					} else {
						out[i].Value = c.New
					}
					break
				}
			}
		}
	}
	return out
}

func (m *memSource) Graph(id int64, step int) (*canon.Graph, error) {
	leaves, err := m.State(id, step)
	if err != nil {
		return nil, err
	}
	return LeafGraph(leaves, changesAt(m.traces[id], step)), nil
}

func testTrace() *engine.Trace {
	return &engine.Trace{
		Model: "Ping",
		Init:  []canon.Leaf{{Path: "A.seq", Value: "0"}, {Path: "B.seq", Value: "0"}},
		Steps: []engine.Step{
			{Proc: "A", Event: "ping", Notes: []engine.Note{note("send", "A", "B", "ping 1")},
				Changes: []canon.Change{{Path: "A.seq", Kind: "changed", Old: "0", New: "1"}}},
			{Proc: "B", Event: "recv", Notes: []engine.Note{note("deliver", "A", "B", "ping 1")},
				Changes: []canon.Change{{Path: "B.last", Kind: "added", New: "1"}}},
		},
	}
}

type testServer struct {
	*Server
	hs *httptest.Server
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	s, err := New(&memSource{traces: map[int64]*engine.Trace{7: testTrace()}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	return &testServer{s, hs}
}

func (ts *testServer) wsURL(token string) string {
	u := "ws" + strings.TrimPrefix(ts.hs.URL, "http") + "/ws"
	if token != "" {
		u += "?token=" + url.QueryEscape(token)
	}
	return u
}

func (ts *testServer) dial(t *testing.T, token, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return websocket.DefaultDialer.Dial(ts.wsURL(token), h)
}

// call sends one request and reads until its reply, returning pushes seen on the way.
func call(t *testing.T, ws *websocket.Conn, id int64, req map[string]any, out any) {
	t.Helper()
	req["id"] = id
	if err := ws.WriteJSON(req); err != nil {
		t.Fatal(err)
	}
	for {
		var m struct {
			ID     int64           `json:"id"`
			Push   string          `json:"push"`
			Result json.RawMessage `json:"result"`
			Error  string          `json:"error"`
		}
		ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatal(err)
		}
		if m.Push != "" || m.ID != id {
			continue
		}
		if m.Error != "" {
			t.Fatalf("%v: %s", req, m.Error)
		}
		if err := json.Unmarshal(m.Result, out); err != nil {
			t.Fatal(err)
		}
		return
	}
}

func TestWebsocketRequests(t *testing.T) {
	ts := newTestServer(t)
	ws, _, err := ts.dial(t, ts.Token(), ts.hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var hello Push
	if err := ws.ReadJSON(&hello); err != nil || hello.Push != "hello" || hello.Mode != "standalone" {
		t.Fatalf("hello %+v %v", hello, err)
	}
	var traces []TraceInfo
	call(t, ws, 1, map[string]any{"op": "traces"}, &traces)
	if len(traces) != 1 || traces[0].ID != 7 || traces[0].Steps != 2 {
		t.Errorf("traces %+v", traces)
	}
	var tv TraceView
	call(t, ws, 2, map[string]any{"op": "trace", "trace": 7}, &tv)
	if tv.Model != "Ping" || len(tv.Chart.Arrows) != 1 || tv.Chart.Arrows[0].Kind != Delivered {
		t.Errorf("trace %+v", tv)
	}
	var sv StepView
	call(t, ws, 3, map[string]any{"op": "step", "trace": 7, "step": 2}, &sv)
	if sv.Proc != "B" || sv.Event != "recv" || len(sv.Notes) != 1 {
		t.Errorf("step %+v", sv)
	}
	var dv DiffView
	call(t, ws, 4, map[string]any{"op": "diff", "trace": 7, "step": 2, "diff": map[string]any{"hideUnchanged": true}}, &dv)
	if len(dv.Rows) != 1 || dv.Rows[0].Path != "B.last" || dv.Rows[0].Kind != "added" || dv.Total != 3 {
		t.Errorf("diff %+v", dv)
	}
	var hv HeapView
	call(t, ws, 5, map[string]any{"op": "heap", "trace": 7, "step": 1, "graph": map[string]any{"root": "A"}}, &hv)
	if hv.Shown != 1 || hv.Changed != 1 || !strings.Contains(hv.DOT, "obj-1") || !reflect.DeepEqual(hv.Roots, []string{"A", "B"}) {
		t.Errorf("heap %+v", hv)
	}
	var gr GotoResult
	call(t, ws, 6, map[string]any{"op": "goto", "trace": 7, "step": 1}, &gr)
	if !gr.Navigate {
		t.Error("standalone goto must tell the page to navigate")
	}
	// Errors are replies too, and the connection goes on.
	ws.WriteJSON(map[string]any{"id": 8, "op": "step", "trace": 7, "step": 9})
	var m Reply
	for m.ID != 8 {
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(m.Error, "steps 0 to 2") {
		t.Errorf("error reply %+v", m)
	}
	call(t, ws, 9, map[string]any{"op": "traces"}, &traces)
}

func TestShowAndGoto(t *testing.T) {
	ts := newTestServer(t)
	gotos := make(chan [2]int64, 1)
	ts.OnGoto = func(id int64, step int) { gotos <- [2]int64{id, int64(step)} }
	ts.Show(7, 1) // before any page: sent on connecting
	ws, _, err := ts.dial(t, ts.Token(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var p Push
	ws.ReadJSON(&p)
	if p.Push != "hello" || p.Mode != "debug" {
		t.Fatalf("hello %+v", p)
	}
	ws.ReadJSON(&p)
	if p.Push != "show" || p.Trace != 7 || p.Step != 1 || p.Sent == 0 {
		t.Fatalf("show on connect %+v", p)
	}
	ts.Show(7, 2)
	ws.ReadJSON(&p)
	if p.Push != "show" || p.Step != 2 {
		t.Fatalf("show %+v", p)
	}
	var gr GotoResult
	call(t, ws, 1, map[string]any{"op": "goto", "trace": 7, "step": 1}, &gr)
	if gr.Navigate || <-gotos != [2]int64{7, 1} {
		t.Errorf("goto in the debugger: %+v", gr)
	}
}
