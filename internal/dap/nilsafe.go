package dap

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm/runtime"
)

// A state changes shape from step to step: a route table has one entry at step 3 and four at
// step 12, a map entry appears, a pointer is nil. A condition is written once and evaluated at
// every candidate stop, so expressions read a state the way a protocol engineer reads it, not
// the way a strict evaluator would:
//   - a field of nil, an element past the end of a slice and a missing map entry are nil
//     (B.routes[1].NextHop while B has one route is nil; as a condition, nil is false);
//   - len(nil) is 0, as in Go, and all, any, filter, count and the like read nil as empty;
//   - an ordered comparison (<, <=, >, >=) with nil is false: B.routes[1].Hops > 2 is false
//     while the entry does not exist;
//   - an element of a keyed slice is named by its one key field's value too (A.routes["D"] is
//     A.routes["Dest=D"]), and a name no element could have is an error (exprkeys.go).
//
// What stays an error is what is wrong at every step: a name that is no component of the state
// (checked when the trace is known), a field a struct does not have, a type mismatch.
//
// The rules are compiled in: a patch rewrites field and index access and ordered comparisons
// into calls of the functions below; expr's parser stays the one that decides what an
// expression is.

// exprOptions are the options an expression is compiled with; ns patches it and collects its
// free names.
func exprOptions(ns *nilSafe) []expr.Option {
	return []expr.Option{
		expr.AllowUndefinedVariables(),
		expr.Patch(ns),
		expr.Function(fnFetch, fetch),
		expr.Function(fnOrder, order),
		expr.Function(fnEmpty, orEmpty),
		expr.Function("len", length),
	}
}

// The functions the patch calls. Their names cannot be written in an expression.
const (
	fnFetch = "$fetch"
	fnOrder = "$order"
	fnEmpty = "$orEmpty"
)

// nilSafe rewrites an expression's tree (bottom up) and collects its free names: the
// identifiers that are neither functions nor let variables, which must be components.
type nilSafe struct {
	idents  []string
	callees []string
	lets    []string
}

func (p *nilSafe) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.IdentifierNode:
		p.idents = append(p.idents, x.Value)
	case *ast.VariableDeclaratorNode:
		p.lets = append(p.lets, x.Name)
	case *ast.CallNode:
		if id, ok := x.Callee.(*ast.IdentifierNode); ok {
			p.callees = append(p.callees, id.Value)
		}
	case *ast.MemberNode:
		if x.Method {
			return
		}
		if id, ok := x.Property.(*ast.IdentifierNode); ok {
			// A.routes[D]: the name stands for the key when D's value cannot be one.
			p.patch(n, fnFetch, x.Node, x.Property, &ast.StringNode{Value: id.Value})
			return
		}
		p.patch(n, fnFetch, x.Node, x.Property)
	case *ast.BinaryNode:
		switch x.Operator {
		case "<", "<=", ">", ">=":
			p.patch(n, fnOrder, &ast.StringNode{Value: x.Operator}, x.Left, x.Right)
		}
	case *ast.BuiltinNode:
		// Builtins that walk a collection: nil is an empty one.
		switch x.Name {
		case "all", "none", "any", "one", "filter", "map", "count", "sum", "find", "findIndex",
			"findLast", "findLastIndex", "groupBy", "sortBy", "reduce", "first", "last":
			if len(x.Arguments) > 0 {
				arg := x.Arguments[0]
				x.Arguments[0] = &ast.CallNode{Callee: &ast.IdentifierNode{Value: fnEmpty}, Arguments: []ast.Node{arg}}
				x.Arguments[0].SetLocation(arg.Location())
			}
		}
	}
}

func (p *nilSafe) patch(n *ast.Node, fn string, args ...ast.Node) {
	loc := (*n).Location()
	ast.Patch(n, &ast.CallNode{Callee: &ast.IdentifierNode{Value: fn}, Arguments: args})
	(*n).SetLocation(loc)
}

// free lists the identifiers that must name components, once each, in order.
func (p *nilSafe) free() []string {
	var out []string
	for _, id := range p.idents {
		if strings.HasPrefix(id, "$") || slices.Contains(p.callees, id) || slices.Contains(p.lets, id) || slices.Contains(out, id) {
			continue
		}
		out = append(out, id)
	}
	return out
}

// fetch is x.f and x[i]: nil where the state has nothing there. x[name] has the name as a
// third argument.
func fetch(args ...any) (any, error) {
	from, k := args[0], args[1]
	if len(args) == 3 {
		k = indexName(k, args[2].(string))
	}
	switch from := from.(type) {
	case nil:
		return nil, nil
	case components:
		if v, ok := from[fmt.Sprint(k)]; ok {
			return v, nil
		}
		return nil, fmt.Errorf("%v is not a component of the state; it has %s", k, from.names())
	case map[string]any: // a struct
		name, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("cannot index a struct with %s", show(k))
		}
		if v, ok := from[name]; ok {
			return v, nil
		}
		return nil, fmt.Errorf("no field %s: the struct has %s", name, fieldNames(from))
	case map[any]any:
		if v, ok := from[k]; ok {
			return v, nil
		}
		return elementByKey(from, k)
	case []any:
		i, ok := k.(int)
		if !ok {
			return nil, fmt.Errorf("cannot index a slice with %s", show(k))
		}
		if i < 0 {
			i += len(from) // expr's xs[-1] is the last element
		}
		if i < 0 || i >= len(from) {
			return nil, nil
		}
		return from[i], nil
	}
	return guard(func() any { return runtime.Fetch(from, k) })
}

// order is a < b, a <= b, a > b or a >= b: false when either is nil.
func order(args ...any) (any, error) {
	op, a, b := args[0].(string), args[1], args[2]
	if a == nil || b == nil {
		return false, nil
	}
	return guard(func() any {
		switch op {
		case "<":
			return runtime.Less(a, b)
		case "<=":
			return runtime.LessOrEqual(a, b)
		case ">":
			return runtime.More(a, b)
		}
		return runtime.MoreOrEqual(a, b)
	})
}

// orEmpty gives all, any, filter and the like a list: nil is empty, and a map (a Go map, or a set
// or keyed slice, whose elements are named by value or key) is its values in the order of their
// keys.
func orEmpty(args ...any) (any, error) {
	if args[0] == nil {
		return []any{}, nil
	}
	v := reflect.ValueOf(args[0])
	if v.Kind() != reflect.Map {
		return args[0], nil
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int {
		return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
	})
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = v.MapIndex(k).Interface()
	}
	return out, nil
}

// length is Go's len, which is 0 for nil.
func length(args ...any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("len takes one argument, not %d", len(args))
	}
	if args[0] == nil {
		return 0, nil
	}
	switch v := reflect.ValueOf(args[0]); v.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return v.Len(), nil
	}
	return nil, fmt.Errorf("len of %s: not a slice, map or string", show(args[0]))
}

// guard runs one of expr's runtime helpers, which panic on a type mismatch.
func guard(f func() any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return f(), nil
}

func fieldNames(m map[string]any) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
