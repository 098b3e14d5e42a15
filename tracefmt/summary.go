package tracefmt

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cmc-go/cmc/engine"
)

// A Check names a finished check for Summary.
type Check struct {
	Model   string
	Params  map[string]string
	Package string
	Search  string
	All     bool   // the search went on after violations
	Goal    string // the scenario the search stopped at, once reached
	Elapsed time.Duration
}

// Summary writes what a check did: what was checked, how many states, whether the space was
// exhausted, what hash compaction risked, and "no violation" when there was none. cmcdap check
// prints it, and the DAP session shows it in the debug console.
func Summary(w io.Writer, c Check, res *engine.Result) {
	secs := max(c.Elapsed.Seconds(), 1e-3)
	fmt.Fprintf(w, "checked %s%s in %s (%s)\n", c.Model, Params(c.Params), c.Package, c.Search)
	how := "complete: every reachable state was explored"
	switch {
	case res.Cancelled:
		how = "cancelled"
	case !res.Complete && len(res.Violations) > 0 && !c.All:
		how = "stopped at the first violation"
	case !res.Complete && reached(res, c.Goal):
		how = "stopped at the goal"
	case !res.Complete:
		how = "not complete (bounded)"
	}
	fmt.Fprintf(w, "%s states, %s transitions, depth %d, %.2fs (%s states/s); %s\n",
		Thousands(res.States), Thousands(res.Transitions), res.Depth, c.Elapsed.Seconds(), Thousands(int64(float64(res.States)/secs)), how)
	if res.Exact {
		fmt.Fprintln(w, "exact state storage: no state can have been missed by a hash collision")
	} else {
		fmt.Fprintf(w, "hash compaction: the probability that a collision hid a state is at most %.1e\n", res.CollisionProbability)
	}
	if len(res.Rules) > 0 {
		fmt.Fprintf(w, "rules by type and field: %s\n", strings.Join(res.Rules, "; "))
	}
	if res.SelfChecked > 0 {
		fmt.Fprintf(w, "self-check: %s transitions compared with their restored copies\n", Thousands(res.SelfChecked))
	}
	for _, e := range res.Environment {
		fmt.Fprintln(w, "environment: "+e)
	}
	if res.Cut > 0 {
		fmt.Fprintf(w, "%s states were not expanded: they are beyond the model's bounds\n", Thousands(res.Cut))
	}
	if res.Rerun != "" {
		fmt.Fprintln(w, "note: "+res.Rerun)
	}
	if res.PrefixNote != "" {
		fmt.Fprintln(w, "note: "+res.PrefixNote)
	}
	if res.Heuristic != "" {
		fmt.Fprintf(w, "best-first by %s\n", heuristics[res.Heuristic])
	}
	for _, sc := range res.Scenarios {
		switch {
		case sc.Reached:
			fmt.Fprintf(w, "scenario %q: reached (%s states stored then)\n", sc.Name, Thousands(sc.States))
		case sc.Progress != nil:
			fmt.Fprintf(w, "scenario %q: not reached; best progress %d\n", sc.Name, *sc.Progress)
		default:
			fmt.Fprintf(w, "scenario %q: not reached\n", sc.Name)
		}
	}
	if len(res.Violations) == 0 {
		fmt.Fprintln(w, "no violation")
	}
}

// reached reports whether the check reached scenario goal.
func reached(res *engine.Result, goal string) bool {
	return slices.ContainsFunc(res.Scenarios, func(sc engine.ScenarioResult) bool { return sc.Name == goal && sc.Reached })
}

// heuristics say what ordered a best-first search (engine.Result.Heuristic).
var heuristics = map[string]string{
	"score":    "the model's score",
	"abstract": "novelty of the model's abstract state",
	"values":   "novelty of the values written (the model gives no score or abstract state)",
}

// Violation renders a violation on one line: kind, property, message and site.
func Violation(v *engine.Violation) string {
	s := v.Kind
	if v.Name != "" {
		s += " " + v.Name
	}
	return s + ": " + v.Message
}

// Params renders model parameters as " (k=v k=v)", sorted, or "" when there are none.
func Params(p map[string]string) string {
	if len(p) == 0 {
		return ""
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + p[k]
	}
	return " (" + strings.Join(parts, " ") + ")"
}

// Thousands writes n with thousands separators: 1,234,567.
func Thousands(n int64) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Guidance is what a progress report says of a best-first search's score and of the scenarios
// reached, as " · score 3/5 · 1 of 2 scenarios reached", or "" when there is neither.
func Guidance(p engine.Progress) string {
	var b strings.Builder
	if len(p.Score) > 0 {
		parts := make([]string, len(p.Score))
		for i, v := range p.Score {
			parts[i] = strconv.Itoa(v)
		}
		b.WriteString(" · score " + strings.Join(parts, "/"))
	}
	if p.Scenarios > 0 {
		fmt.Fprintf(&b, " · %d of %d scenarios reached", p.Reached, p.Scenarios)
	}
	return b.String()
}
