package dap

import (
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/canon"
)

// A node is one variable of a state: a component, a field, an element, an entry or a leaf. The
// tree is built from the flattened state (canon.Leaf paths such as B.routes[D].seq), so the
// Variables pane needs no re-execution: only the stored leaves.
type node struct {
	name    string // as shown: a root or field name, [3], [D] or *
	path    string // the canonical path, as in leaves and changes
	value   string // a leaf's rendered value
	leaf    bool
	kids    []*node
	byName  map[string]*node
	indexed bool // the children are [0], [1], ... in order: a slice or an array
}

// buildTree makes the tree of a state; its children are the roots (components) in state order.
func buildTree(leaves []canon.Leaf) *node {
	top := &node{}
	for _, l := range leaves {
		n := top
		for _, s := range parsePath(l.Path) {
			n = n.child(s)
		}
		n.leaf, n.value = true, l.Value
	}
	top.finish()
	return top
}

func (n *node) child(s segment) *node {
	if c, ok := n.byName[s.name]; ok {
		return c
	}
	if n.byName == nil {
		n.byName = map[string]*node{}
	}
	c := &node{name: s.name, path: s.extend(n.path)}
	n.byName[s.name] = c
	n.kids = append(n.kids, c)
	return c
}

// finish marks indexed nodes, bottom up.
func (n *node) finish() {
	n.indexed = len(n.kids) > 0
	for i, c := range n.kids {
		c.finish()
		if c.name != "["+strconv.Itoa(i)+"]" {
			n.indexed = false
		}
	}
}

// find returns the node at a canonical path, or nil.
func (n *node) find(path string) *node {
	for _, s := range parsePath(path) {
		c := n.byName[s.name]
		if c == nil {
			c = n.byName[unquoteKey(s.name)] // written as an expression: ["Dest=D"] for [Dest=D]
		}
		if n = c; n == nil {
			return nil
		}
	}
	return n
}

// unquoteKey turns an element written as in an expression (["D"]) into its path segment ([D]),
// or returns "".
func unquoteKey(seg string) string {
	if !strings.HasPrefix(seg, `["`) || !strings.HasSuffix(seg, `"]`) {
		return ""
	}
	k, err := strconv.Unquote(seg[1 : len(seg)-1])
	if err != nil {
		return ""
	}
	return "[" + k + "]"
}

// isKeyed reports whether the children are map entries ([key], not [0]..[n-1] in order).
func (n *node) isKeyed() bool {
	return !n.indexed && len(n.kids) > 0 && strings.HasPrefix(n.kids[0].name, "[")
}

// summary is what a composite shows folded: {seq: 3, hops: 2, …}, [3 items] and so on, cut at
// about max bytes.
func (n *node) summary(max int) string {
	if n.leaf {
		return n.value
	}
	if len(n.kids) == 1 && n.kids[0].name == "*" {
		return "*" + n.kids[0].summary(max-1)
	}
	var b strings.Builder
	open, close := "{", "}"
	if n.indexed {
		open, close = "[", "]"
	}
	b.WriteString(open)
	for i, c := range n.kids {
		if i > 0 {
			b.WriteString(", ")
		}
		if b.Len() > max {
			b.WriteString("…")
			break
		}
		if !n.indexed {
			b.WriteString(strings.TrimSuffix(strings.TrimPrefix(c.name, "["), "]") + ": ")
		}
		if c.leaf {
			b.WriteString(c.value)
		} else {
			b.WriteString(c.summary(max - b.Len()))
		}
	}
	b.WriteString(close)
	if n.indexed || n.isKeyed() {
		return "len " + strconv.Itoa(len(n.kids)) + " " + b.String()
	}
	return b.String()
}

// A segment is one step of a path (canon.Segment), named as the Variables pane shows it.
type segment struct {
	name string // field, [key] or *
}

func (s segment) extend(prefix string) string {
	return string(canon.Path(prefix).Child(canon.Segment(s.name)))
}

// parsePath splits a canonical path into segments (canon.Path.Segments).
func parsePath(p string) []segment {
	segs := canon.Path(p).Segments()
	out := make([]segment, len(segs))
	for i, s := range segs {
		out[i] = segment{name: string(s)}
	}
	return out
}

// under reports whether path lies at or below p (canon.Path.Under).
func under(path, p string) bool { return canon.Path(path).Under(canon.Path(p)) }

// exprPath writes a canonical path in the expression language: B.routes["D"].seq, rm[0],
// $env["odd name"].
func exprPath(path string) string {
	var b strings.Builder
	for i, s := range parsePath(path) {
		switch {
		case s.name == "*":
			// Dereferences are transparent in expressions.
		case strings.HasPrefix(s.name, "["):
			k := s.name[1 : len(s.name)-1]
			if _, err := strconv.Atoi(k); err == nil {
				b.WriteString(s.name)
			} else {
				b.WriteString("[" + strconv.Quote(keyString(k)) + "]")
			}
		case i == 0 && isIdent(s.name):
			b.WriteString(s.name)
		case i == 0:
			b.WriteString("$env[" + strconv.Quote(s.name) + "]")
		case isIdent(s.name):
			b.WriteString("." + s.name)
		default:
			b.WriteString("[" + strconv.Quote(s.name) + "]")
		}
	}
	return b.String()
}

// keyString is a map key as an expression indexes it: a quoted string key unquoted, any other
// key as rendered.
func keyString(k string) string {
	if u, err := strconv.Unquote(k); err == nil && strings.HasPrefix(k, `"`) {
		return u
	}
	return k
}

var keywords = map[string]bool{"in": true, "not": true, "and": true, "or": true, "matches": true,
	"contains": true, "startsWith": true, "endsWith": true, "nil": true, "true": true, "false": true, "let": true}

func isIdent(s string) bool {
	if s == "" || keywords[s] {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return true
}
