package dap

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// Expressions (breakpoint conditions, watches, log messages, the debug console) are written in
// github.com/expr-lang/expr over a state: each component is a variable, fields are members,
// elements and map entries are indexed with the key as rendered (A.routes["Dest=D"].NextHop == "C",
// B.Routes["A"].Hops < 3), nil-safely (nilsafe.go). The environment is built from the same tree
// as the Variables pane, so what one shows the other can name. Hovers are paths into that tree,
// not expressions (hover.go).

// An env is a state as expression values, and the way back from a composite value to its node
// (so an evaluated sub-tree can be expanded in the editor).
type env struct {
	vars  components
	nodes map[uintptr]*node
}

// components are a state's roots by name: the variables of an expression.
type components map[string]any

// names lists the components, for messages.
func (c components) names() string { return fieldNames(c) }

func newEnv(top *node) *env {
	e := &env{vars: components{}, nodes: map[uintptr]*node{}}
	for _, r := range top.kids {
		e.vars[r.name] = e.value(r)
	}
	return e
}

// value converts a node: leaves to numbers, booleans, strings or nil; slices to []any; map
// entries to map[any]any (integer keys as ints, string keys unquoted); structs to map[string]any.
// A dereference is transparent.
func (e *env) value(n *node) any {
	switch {
	case n.leaf:
		return scalar(n.value)
	case len(n.kids) == 1 && n.kids[0].name == "*":
		return e.value(n.kids[0])
	case n.indexed:
		s := make([]any, len(n.kids))
		for i, c := range n.kids {
			s[i] = e.value(c)
		}
		e.nodes[sliceID(s)] = n
		return s
	case n.isKeyed():
		m := make(map[any]any, len(n.kids))
		for _, c := range n.kids {
			m[key(c.name[1:len(c.name)-1])] = e.value(c)
		}
		e.nodes[reflect.ValueOf(m).Pointer()] = n
		return m
	}
	m := make(map[string]any, len(n.kids))
	for _, c := range n.kids {
		m[c.name] = e.value(c)
	}
	e.nodes[reflect.ValueOf(m).Pointer()] = n
	return m
}

func sliceID(s []any) uintptr {
	if len(s) == 0 {
		return 0
	}
	return reflect.ValueOf(s).Pointer()
}

// nodeOf returns the node an evaluated composite came from, if it is one.
func (e *env) nodeOf(v any) *node {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice:
		if rv.Kind() == reflect.Slice && rv.Len() == 0 {
			return nil
		}
		return e.nodes[rv.Pointer()]
	}
	return nil
}

// scalar reads a rendered leaf value (canon.Render) back as a value expressions can compare.
func scalar(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	case "nil":
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return int(i)
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u
	}
	if strings.Trim(s, "0123456789.eE+-") == "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return s
}

// key reads a rendered map key: an integer, a quoted string unquoted, or the text as is (a
// type's String result, such as a node name).
func key(s string) any {
	if i, err := strconv.Atoi(s); err == nil {
		return i
	}
	return keyString(s)
}

// A program is a compiled expression and the names it reads, which must be components of the
// state it runs on.
type program struct {
	vm    *vm.Program
	names []string
}

// programs caches compiled expressions: conditions are evaluated at every candidate stop.
type programs map[string]*program

func (p programs) compile(code string) (*program, error) {
	if prog, ok := p[code]; ok {
		return prog, nil
	}
	ns := &nilSafe{}
	v, err := expr.Compile(code, exprOptions(ns)...)
	if err != nil {
		return nil, err
	}
	prog := &program{vm: v, names: ns.free()}
	p[code] = prog
	return prog, nil
}

// checkNames says which name of the program is not a component, if one is not.
func (prog *program) checkNames(vars components) error {
	for _, n := range prog.names {
		if _, ok := vars[n]; !ok {
			return fmt.Errorf("%s is not a component of the state; it has %s", n, vars.names())
		}
	}
	return nil
}

// eval runs an expression over an environment. A panic in the expression machinery is an error.
func (p programs) eval(code string, e *env) (v any, err error) {
	prog, err := p.compile(code)
	if err != nil {
		return nil, err
	}
	if err := prog.checkNames(e.vars); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return expr.Run(prog.vm, e.vars)
}

// truth evaluates a condition: true stops, false and nil (nothing there, as B.routes[3] while B
// has fewer routes) do not, anything else is an error.
func (p programs) truth(code string, e *env) (bool, error) {
	v, err := p.eval(code, e)
	if err != nil {
		return false, err
	}
	switch v := v.(type) {
	case bool:
		return v, nil
	case nil:
		return false, nil
	}
	return false, fmt.Errorf("condition %q is %s, not true or false", code, show(v))
}

// show renders an expression result the way the Variables pane renders leaves.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(v)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = show(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + show(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[any]any:
		parts := make([]string, 0, len(v))
		for k, x := range v {
			parts = append(parts, fmt.Sprint(k)+": "+show(x))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}
