package dap

import (
	"strconv"

	"github.com/cmc-go/cmc/engine"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// A hover shows a value only for a state path: a name followed by fields and constant indexes
// that lead to a variable of the state shown, which it shows as the Variables pane does. In
// handler code the first name is usually the receiver (r.routes, me.Routes["A"]): when it is not
// a component it stands for the process acting in the step. Anything else under the mouse (a
// local such as pk or err, a call, an operator, a path to nothing) shows nothing: the answer is
// a quiet error, never a value from somewhere else.

// hoverNode finds the variable a hovered expression names at p, or nil.
func (s *Session) hoverNode(code string, p engine.Cursor) (*node, error) {
	root, keys, ok := pathKeys(code)
	if !ok {
		return nil, nil
	}
	st, err := s.stateAt(p.Shown())
	if err != nil {
		return nil, err
	}
	n := st.tree.byName[root]
	if n == nil && len(keys) > 0 && p.Step > 0 {
		n = st.tree.byName[s.tr.step(p.Step).Proc]
	}
	for _, k := range keys {
		if n == nil {
			break
		}
		n = n.member(k)
	}
	return n, nil
}

// pathKeys reads an expression that is a path: its first name and the keys after it (field
// names and string keys as strings, indexes as ints). $env["odd name"] starts at that component.
func pathKeys(code string) (root string, keys []any, ok bool) {
	tree, err := parser.Parse(code)
	if err != nil {
		return "", nil, false
	}
	n := tree.Node
	for {
		switch x := n.(type) {
		case *ast.ChainNode:
			n = x.Node
			continue
		case *ast.MemberNode:
			if x.Method {
				return "", nil, false
			}
			switch k := x.Property.(type) {
			case *ast.StringNode:
				keys = append(keys, k.Value)
			case *ast.IntegerNode:
				keys = append(keys, k.Value)
			default:
				return "", nil, false
			}
			n = x.Node
			continue
		case *ast.IdentifierNode:
			root = x.Value
		default:
			return "", nil, false
		}
		break
	}
	for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
		keys[i], keys[j] = keys[j], keys[i]
	}
	if root == "$env" {
		if len(keys) == 0 {
			return "", nil, false
		}
		name, isName := keys[0].(string)
		if !isName {
			return "", nil, false
		}
		root, keys = name, keys[1:]
	}
	return root, keys, true
}

// member is the child a field name, key or index names; dereferences are transparent.
func (n *node) member(k any) *node {
	for len(n.kids) == 1 && n.kids[0].name == "*" {
		n = n.kids[0]
	}
	switch k := k.(type) {
	case int:
		return n.byName["["+strconv.Itoa(k)+"]"]
	case string:
		for _, name := range []string{k, "[" + strconv.Quote(k) + "]", "[" + k + "]"} {
			if c := n.byName[name]; c != nil {
				return c
			}
		}
	}
	return nil
}
