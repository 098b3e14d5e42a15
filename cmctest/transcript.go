package cmctest

import (
	"fmt"
	"strings"

	"github.com/cmc-go/cmc/engine"
)

// Transcript renders a search's result for a golden file: the counts, then each violation with
// its steps and each step's notes, one line each.
func Transcript(r *engine.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "states %d, transitions %d, depth %d, complete %v, cut %d\n", r.States, r.Transitions, r.Depth, r.Complete, r.Cut)
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "violation %s: %s\n", v.Violation.Kind, v.Violation.Message)
		for i, s := range v.Steps {
			fmt.Fprintf(&b, "  %d %s.%s\n", i+1, s.Proc, s.Event)
			for _, n := range s.Notes {
				to := ""
				if n.To != "" {
					to = "->" + n.To
				}
				fmt.Fprintf(&b, "     %s %s%s %s\n", n.Kind, n.From, to, n.Msg)
			}
		}
	}
	return b.String()
}
