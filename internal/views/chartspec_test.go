package views

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/engine"
)

// TestChartSpecMarks: a refinement check's notes mark the step's process with the spec step it
// matched or refused, named by the specification, which gets no lifeline; what the spec allowed
// instead is for the debugger's Specification scope, not the chart.
func TestChartSpecMarks(t *testing.T) {
	tr := &engine.Trace{Steps: []engine.Step{
		{Proc: "A", Event: "Open", Notes: []engine.Note{note("send", "A", "B", "req"), note("spec", "A", "ppp0", "Open: irc,scr → Req-Sent")}},
		{Proc: "A", Event: "receive", Notes: []engine.Note{note("spec-refused", "A", "ppp0", "in Opened: RTA with tld,scr reaching Opened"), note("spec-allows", "A", "ppp0", "RTA: tld,scr → Req-Sent")}},
	}}
	got := Chart(tr)
	want := []ChartStep{
		{Step: 1, Lifeline: 0, Event: "Open", Marks: []Mark{{Lifeline: 0, Kind: "spec", Text: "ppp0 Open: irc,scr → Req-Sent", Label: "Open"}}},
		{Step: 2, Lifeline: 0, Event: "receive", Marks: []Mark{{Lifeline: 0, Kind: "spec-refused", Text: "ppp0 in Opened: RTA with tld,scr reaching Opened", Label: "✗ RTA"}}},
	}
	if diff := cmp.Diff([]string{"A", "B"}, got.Lifelines); diff != "" {
		t.Errorf("lifelines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, got.Steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}
