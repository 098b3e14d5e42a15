package views

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

func note(kind, from, to, msg string) engine.Note {
	return engine.Note{Kind: kind, From: from, To: to, Msg: msg}
}

func TestChart(t *testing.T) {
	tr := &engine.Trace{
		Init: []canon.Leaf{{Path: "net.Pending", Value: "[]"}, {Path: "A.seq", Value: "0"}, {Path: "B.seq", Value: "0"}, {Path: "C.seq", Value: "0"}},
		Steps: []engine.Step{
			{Proc: "A", Event: "start", Notes: []engine.Note{note("send", "A", "B", "req 1"), note("send", "A", "B", "req 1"), note("send", "A", "C", "req 1")}},
			{Proc: "B", Event: "recv", Notes: []engine.Note{note("dup", "A", "B", "req 1"), note("deliver", "A", "B", "req 1")}},
			{Proc: "C", Event: "recv", Notes: []engine.Note{note("lose", "A", "C", "req 1")}},
			{Proc: "B", Event: "recv", Notes: []engine.Note{note("deliver", "A", "B", "req 1"), note("send", "B", "A", "rep"), note("drop", "B", "C", "rep (network full)")}},
			{Proc: "C", Event: "crash", Notes: []engine.Note{{Kind: "fail", Msg: "disk"}}},
			{Proc: "A", Event: "recv", Notes: []engine.Note{note("deliver", "X", "A", "old")}},
		},
		Violation: &engine.Violation{Kind: "invariant", Message: "loop"},
	}
	got := Chart(tr)
	want := &SeqChart{
		// A, B, C in the state's order; X only appears in a note.
		Lifelines: []string{"A", "B", "C", "X"},
		Steps: []ChartStep{
			{Step: 1, Lifeline: 0, Event: "start"},
			{Step: 2, Lifeline: 1, Event: "recv", Marks: []Mark{{Lifeline: 1, Kind: "dup", Text: "req 1"}}},
			{Step: 3, Lifeline: 2, Event: "recv"},
			{Step: 4, Lifeline: 1, Event: "recv"},
			{Step: 5, Lifeline: 2, Event: "crash", Marks: []Mark{{Lifeline: 2, Kind: "fail", Text: "disk"}}},
			{Step: 6, Lifeline: 0, Event: "recv"},
		},
		Arrows: []Arrow{
			{From: 0, To: 1, Send: 1, Recv: 2, Msg: "req 1", Kind: Delivered},
			// The second identical request stays in flight behind the duplicate.
			{From: 0, To: 1, Send: 1, Recv: 0, Msg: "req 1", Kind: InFlight},
			{From: 0, To: 2, Send: 1, Recv: 3, Msg: "req 1", Kind: Lost},
			// The copy the duplicating delivery left is the next one delivered (FIFO).
			{From: 0, To: 1, Send: 1, Recv: 4, Msg: "req 1", Kind: Delivered, Dup: true},
			{From: 1, To: 0, Send: 4, Recv: 0, Msg: "rep", Kind: InFlight},
			{From: 1, To: 2, Send: 4, Recv: 4, Msg: "rep (network full)", Kind: Dropped},
			// Delivered but never sent in the trace: in flight in the initial state.
			{From: 3, To: 0, Send: 0, Recv: 6, Msg: "old", Kind: Delivered},
		},
		Violation: "invariant: loop",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chart (-want +got):\n%s", diff)
	}
}

func TestChartDropOnDelivery(t *testing.T) {
	// A model's own drop note at the receiver loses the message in flight.
	tr := &engine.Trace{Steps: []engine.Step{
		{Proc: "A", Event: "send", Notes: []engine.Note{note("send", "A", "B", "m")}},
		{Proc: "B", Event: "recv", Notes: []engine.Note{note("drop", "A", "B", "m")}},
	}}
	got := Chart(tr).Arrows
	want := []Arrow{{From: 0, To: 1, Send: 1, Recv: 2, Msg: "m", Kind: Lost}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("arrows (-want +got):\n%s", diff)
	}
}

func TestChartEmptyJSON(t *testing.T) {
	b, err := json.Marshal(Chart(&engine.Trace{}))
	if err != nil {
		t.Fatal(err)
	}
	// Empty lists are [] for the page, never null.
	if got := string(b); got != `{"lifelines":[],"steps":[],"arrows":[]}` {
		t.Errorf("empty chart: %s", got)
	}
}

func TestRootOf(t *testing.T) {
	for in, want := range map[string]string{"A.routes[2]": "A", "(*A)": "A", "net": "net", "B[3]": "B"} {
		if got := rootOf(in); got != want {
			t.Errorf("rootOf(%q) = %q", in, got)
		}
	}
}
