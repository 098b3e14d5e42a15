package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cmc-go/cmc"
)

// TestSearch runs the transcripts in testdata/: `check model=NAME [search=bfs|dfs|random] [depth=N]
// [all] [exact] [steps=N] [seed=N] [keep]` prints the result and each violation's trace.
// Regenerate with: go test ./engine -run TestSearch -rewrite
func TestSearch(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "check":
				return runCheck(t, d)
			case "visit":
				return runVisit(t, d)
			}
			return "unknown command " + d.Cmd
		})
	})
}

func runCheck(t *testing.T, d *datadriven.TestData) string {
	name, opts := checkArgs(t, d)
	build, ok := testModels[name]
	if !ok {
		t.Fatalf("unknown model %q", name)
	}
	return checkResult(build(), opts)
}

// checkArgs reads a check's model name and options.
func checkArgs(t *testing.T, d *datadriven.TestData) (string, Options) {
	var name string
	var opts Options
	for _, a := range d.CmdArgs {
		v := ""
		if len(a.Vals) > 0 {
			v = a.Vals[0]
		}
		n, _ := strconv.Atoi(v)
		switch a.Key {
		case "model":
			name = v
		case "search":
			opts.Search = v
		case "depth":
			opts.MaxDepth = n
		case "all":
			opts.All = true
		case "exact":
			opts.Exact = true
		case "steps":
			opts.Steps = n
		case "seed":
			opts.Seed = uint64(n)
		case "keep":
			opts.Keep = true
		case "selfcheck":
			opts.SelfCheck = int64(n)
		case "goal":
			opts.Goal = v
		case "states":
			opts.MaxStates = int64(n)
		default:
			t.Fatalf("unknown argument %s", a.Key)
		}
	}
	return name, opts
}

// checkResult runs a check and prints its result and each violation's trace.
func checkResult(m *cmc.Model, opts Options) string {
	res, err := Check(context.Background(), m, opts)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "states %d, transitions %d, depth %d, complete %v, cut %d\n", res.States, res.Transitions, res.Depth, res.Complete, res.Cut)
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "violation %s %q: %s", v.Violation.Kind, v.Violation.Name, v.Violation.Message)
		if v.Violation.Site != "" {
			fmt.Fprintf(&b, " at %s", filepath.Base(v.Violation.Site))
		}
		fmt.Fprintf(&b, " [%s]\n", sigBase(v.Violation.Signature))
		writeTrace(&b, v)
	}
	if res.Walk != nil {
		fmt.Fprintf(&b, "walk of %d steps\n", len(res.Walk.Steps))
		writeTrace(&b, res.Walk)
	}
	if res.Heuristic != "" {
		fmt.Fprintf(&b, "heuristic %s\n", res.Heuristic)
	}
	for _, sc := range res.Scenarios {
		fmt.Fprintf(&b, "scenario %q reached %v, states %d", sc.Name, sc.Reached, sc.States)
		if sc.Progress != nil {
			fmt.Fprintf(&b, ", best progress %d", *sc.Progress)
		}
		b.WriteString("\n")
		if sc.Trace != nil {
			fmt.Fprintf(&b, "  %s\n", sc.Trace.Violation.Message)
			writeTrace(&b, sc.Trace)
		}
	}
	return b.String()
}

func sigBase(s string) string { return s }

func writeTrace(b *strings.Builder, t *Trace) {
	fmt.Fprintf(b, "  init %s\n", t.InitHash)
	for i, s := range t.Steps {
		fmt.Fprintf(b, "  %d %s.%s", i+1, s.Proc, s.Event)
		for _, c := range s.Choices {
			fmt.Fprintf(b, " %d/%d@%s", c.Value, c.N, filepath.Base(c.Site))
		}
		fmt.Fprintf(b, " -> %s\n", s.Hash)
		for _, n := range s.Notes {
			fmt.Fprintf(b, "     %s %s->%s %s\n", n.Kind, n.From, n.To, n.Msg)
		}
		for _, c := range s.Changes {
			fmt.Fprintf(b, "     %s %s: %s -> %s\n", c.Kind, c.Path, c.Old, c.New)
		}
	}
}
