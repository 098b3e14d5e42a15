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
// from the same types (Ops), so a misspelt op or argument in the page fails its type check, and
// this table stays the one place that says what the server takes.
var ops = map[string]op{
	"traces": serveOp((*Server).opTraces),
	"trace":  serveOp((*Server).opTrace),
	"step":   serveOp((*Server).opStep),
	"heap":   serveOp((*Server).opHeap),
	"diff":   serveOp((*Server).opDiff),
	"goto":   serveOp((*Server).opGoto),
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
	diffArgs struct {
		stepArgs
		Diff DiffFilter `json:"diff,omitzero"`
	}
)

type op struct {
	args, result reflect.Type
	serve        func(s *Server, req []byte) (any, error)
}

func serveOp[A, R any](f func(*Server, A) (R, error)) op {
	return op{reflect.TypeFor[A](), reflect.TypeFor[R](), func(s *Server, req []byte) (any, error) {
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
}

// Ops lists the requests the server answers, by name, for `go generate`.
func Ops() []Op {
	var out []Op
	for name, o := range ops {
		out = append(out, Op{name, o.args, o.result})
	}
	slices.SortFunc(out, func(a, b Op) int { return strings.Compare(a.Name, b.Name) })
	return out
}
