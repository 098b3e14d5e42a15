package dap

import (
	"encoding/json"
	"strconv"

	"github.com/cmc-go/cmc/engine"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/google/go-dap"
)

// A hover shows a value only for a state path: a name followed by fields and constant indexes
// that lead to a variable of the state shown, which it shows as the Variables pane does. A first
// name that is not a component is the acting process only where the source says so: it is the
// receiver of the method the hovered word is in (r in func (r *Router) Receive), and the process
// has that receiver's type; or, inside the closure that is the step's handler, the variable the
// closure's On chain registered as its process (me in m.Process(me.Name, me).On(..., func() {
// ... })). Where the client does not say where the mouse is (DAP's evaluate
// location is newer than many clients), the method is the one of the frame's line: the handler,
// or the Choose call inside the step. Anything else under the mouse (a local such as pk, err or
// the b of a loop, a call, an operator, a path to nothing) shows nothing: the answer is a quiet
// error, never a value from somewhere else.

// A hoverRequest is an evaluate request for a hover with the place the mouse is over, when the
// client sent it (source, line: DAP 1.66; go-dap does not decode them).
type hoverRequest struct {
	*dap.EvaluateRequest
	at engine.SourceLine // File is "" when the client did not say
}

// withHoverPlace wraps a hover's evaluate request with its place, read from the raw message.
func withHoverPlace(m dap.Message, raw []byte) dap.Message {
	req, ok := m.(*dap.EvaluateRequest)
	if !ok || req.Arguments.Context != "hover" {
		return m
	}
	var place struct {
		Arguments struct {
			Source *struct {
				Path string `json:"path"`
			} `json:"source"`
			Line int `json:"line"`
		} `json:"arguments"`
	}
	h := &hoverRequest{EvaluateRequest: req}
	if json.Unmarshal(raw, &place) == nil && place.Arguments.Source != nil && place.Arguments.Line > 0 {
		h.at = engine.SourceLine{File: place.Arguments.Source.Path, Line: place.Arguments.Line}
	}
	return h
}

func (s *Session) onHover(req *hoverRequest) {
	a := req.Arguments
	if !s.requireStop(&req.Request) {
		return
	}
	p, ok := s.framePos(a.FrameId)
	if !ok {
		p = s.pos
	}
	n, err := s.hoverNode(a.Expression, p, req.at)
	switch {
	case err != nil:
		s.sendQuietError(&req.Request, errStore, "evaluate: "+err.Error())
	case n == nil:
		// Most words under the mouse are not paths into the state: no value, and no toast.
		s.sendQuietError(&req.Request, errEvaluate, a.Expression+" is not a variable of the state")
	default:
		s.sendNode(req.EvaluateRequest, p, n)
	}
}

// hoverNode finds the variable a hovered expression names at p, or nil; at is where the mouse
// is, if known.
func (s *Session) hoverNode(code string, p engine.Cursor, at engine.SourceLine) (*node, error) {
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
		n = s.receiverNode(st.tree, root, p, at)
	}
	for _, k := range keys {
		if n == nil {
			break
		}
		n = n.member(k)
	}
	return n, nil
}

// receiverNode is the acting process's variable when name is, at the hovered place (else at the
// frame's line), the receiver of the method there and the process has the receiver's type, or
// the variable the step's handler closure names its process by; else nil.
func (s *Session) receiverNode(tree *node, name string, p engine.Cursor, at engine.SourceLine) *node {
	st := s.tr.step(p.Step)
	n := tree.byName[st.Proc]
	handler, hasHandler := s.sourceLine(st.Site)
	if at.File == "" {
		site := st.Site
		if c := s.tr.t.Call(p); c != nil {
			site = c.Site
		}
		var ok bool
		if at, ok = s.sourceLine(site); !ok {
			return nil
		}
	}
	if n == nil {
		return nil
	}
	if r, ok := s.sources.receiverAt(at.File, at.Line); ok && r.name == name && r.isTypeOf(n) {
		return n
	}
	if hasHandler && handler.File == at.File {
		if v, ok := s.sources.processVarAt(at.File, at.Line, handler.Line); ok && v == name {
			return n
		}
	}
	return nil
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
