package tracefmt

import (
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
)

// TestGuidance: progress of a best-first search shows its score by level and the scenarios reached.
func TestGuidance(t *testing.T) {
	for _, c := range []struct {
		p    engine.Progress
		want string
	}{
		{engine.Progress{States: 10}, ""},
		{engine.Progress{Score: []int{3, 5}}, " · score 3/5"},
		{engine.Progress{Score: []int{-1}, Reached: 1, Scenarios: 2}, " · score -1 · 1 of 2 scenarios reached"},
	} {
		if got := Guidance(c.p); got != c.want {
			t.Errorf("Guidance(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// TestSummaryScenarios: the summary says which scenarios were reached, the best progress of those
// that were not, what ordered a best-first search, and that a search stopped at its goal.
func TestSummaryScenarios(t *testing.T) {
	best := 2
	res := &engine.Result{States: 7, Heuristic: "score", Scenarios: []engine.ScenarioResult{
		{Name: "corner", Reached: true, States: 7}, {Name: "off", Progress: &best}, {Name: "never"}}}
	var b strings.Builder
	Summary(&b, Check{Model: "grid", Search: "best", Goal: "corner", Elapsed: time.Second}, res)
	for _, want := range []string{"; stopped at the goal\n", "best-first by the model's score\n",
		"scenario \"corner\": reached (7 states stored then)\n", "scenario \"off\": not reached; best progress 2\n",
		"scenario \"never\": not reached\n", "no violation\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
