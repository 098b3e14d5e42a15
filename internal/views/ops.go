package views

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// The requests the page makes, by op. Each handler takes its arguments as a Go type and answers
// with one: `go generate` (internal/gen) writes the page's TypeScript (webview/src/types.gen.ts)
// and docs/views.md's table of ops from the same types and docs (Ops), so a misspelt op or argument in the page fails its type check, and
// this table stays the one place that says what the server takes.
var ops = map[string]op{
	"traces": serveOp((*Server).opTraces,
		"The traces the server can show."),
	"trace": serveOp((*Server).opTrace,
		"Trace `trace` as a whole: model, params, steps, violation, and its sequence chart."),
	"step": serveOp((*Server).opStep,
		"The header of step `step` (0: the initial state): process, event, site, choices, notes; each specification the model refines (its state, the spec step matched or refused and what it allowed), and the conversations with real peers up to the step."),
	"heap": serveOp((*Server).opHeap,
		"The heap graph of the state after step `step`, as DOT: the part `graph` selects, with counts and a `note`."),
	"diff": serveOp((*Server).opDiff,
		"The state after step `step`, as rows marked with what the step changed: those `diff` selects, with counts."),
	"compare": serveOp((*Server).opCompare,
		"Traces `a` and `b` side by side: how many steps they take alike (`same`), then each pair of steps from the first that differs (at most 200) with how the state after it differs from `a`'s to `b`'s."),
	"goto": serveOp((*Server).opGoto,
		"A click on step `step`: the debugger moves there (and then shows it); `navigate` says the page should move by itself, when there is no debugger."),
}

// The arguments of the ops, beside "id" and "op" in the request.
type (
	traceArgs struct {
		Trace int64 `json:"trace"`
	}
	stepArgs struct {
		Trace int64 `json:"trace"`
		Step  int   `json:"step"` // 0: the initial state
	}
	heapArgs struct {
		stepArgs
		Graph GraphOptions `json:"graph,omitzero"`
	}
	compareArgs struct {
		A int64 `json:"a"`
		B int64 `json:"b"`
	}
	diffArgs struct {
		stepArgs
		Diff DiffFilter `json:"diff,omitzero"`
	}
)

type op struct {
	args, result reflect.Type
	doc          string // one line for docs/views.md
	serve        func(s *Server, req []byte) (any, error)
}

func serveOp[A, R any](f func(*Server, A) (R, error), doc string) op {
	return op{reflect.TypeFor[A](), reflect.TypeFor[R](), doc, func(s *Server, req []byte) (any, error) {
		var a A
		if err := json.Unmarshal(req, &a); err != nil {
			return nil, fmt.Errorf("bad arguments: %v", err)
		}
		return f(s, a)
	}}
}

// An Op is one kind of request the page makes, with the Go types of its arguments and result.
type Op struct {
	Name         string
	Args, Result reflect.Type
	Doc          string // what it answers, in a line
}

// Ops lists the requests the server answers, by name, for `go generate`.
func Ops() []Op {
	var out []Op
	for name, o := range ops {
		out = append(out, Op{name, o.args, o.result, o.doc})
	}
	slices.SortFunc(out, func(a, b Op) int { return strings.Compare(a.Name, b.Name) })
	return out
}
