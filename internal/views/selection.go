package views

import (
	"strings"

	"github.com/cmc-go/cmc/canon"
)

// GraphOptions say which part of a heap graph to draw. Large graphs stay usable: objects deeper
// than MaxDepth, or past the first MaxNodes, fold into one "+k more" node under the deepest shown
// object above them, until the page expands it.
type GraphOptions struct {
	Root      string `json:"root,omitempty"`      // only objects reachable from this root; "": the whole system
	Filter    string `json:"filter,omitempty"`    // only objects whose path contains this (case-insensitive), and the objects on the way to them
	MaxDepth  int    `json:"maxDepth,omitempty"`  // 0: DefaultMaxDepth; negative: no limit (ignored while filtering)
	MaxNodes  int    `json:"maxNodes,omitempty"`  // 0: DefaultMaxNodes; negative: no limit
	MaxFields int    `json:"maxFields,omitempty"` // rows per object; 0: DefaultMaxFields
	Expand    []int  `json:"expand,omitempty"`    // objects whose folded objects are shown
}

// Defaults for GraphOptions.
const (
	DefaultMaxDepth  = 8
	DefaultMaxNodes  = 150
	DefaultMaxFields = 20
)

// A selection is the outcome of GraphOptions on a graph: which objects are drawn, and how many
// are folded under each drawn one.
type selection struct {
	g       *canon.Graph
	shown   []bool // by id
	folded  []int  // by id: objects folded under it
	parent  []int  // by id: the object that first reaches it from the selected roots (0: a root)
	inScope []bool // reachable from the selected roots and kept by the filter
	order   []int  // ids in breadth-first order from the selected roots
	roots   int    // selected roots found
}

func (o GraphOptions) limits() (depth, nodes, fields int) {
	depth, nodes, fields = o.MaxDepth, o.MaxNodes, o.MaxFields
	if depth == 0 {
		depth = DefaultMaxDepth
	}
	if nodes == 0 {
		nodes = DefaultMaxNodes
	}
	if fields <= 0 {
		fields = DefaultMaxFields
	}
	if depth < 0 || o.Filter != "" {
		depth = int(^uint(0) >> 1)
	}
	if nodes < 0 {
		nodes = int(^uint(0) >> 1)
	}
	return depth, nodes, fields
}

func selectObjects(g *canon.Graph, o GraphOptions) *selection {
	n := len(g.Objects) + 1
	s := &selection{g: g, shown: make([]bool, n), folded: make([]int, n), parent: make([]int, n), inScope: make([]bool, n)}
	depth := make([]int, n)
	reached := make([]bool, n)
	for _, obj := range g.Objects {
		if obj.Root != "" && (o.Root == "" || obj.Root == o.Root) {
			reached[obj.ID] = true
			s.order = append(s.order, obj.ID)
			s.roots++
		}
	}
	for i := 0; i < len(s.order); i++ {
		id := s.order[i]
		eachRef(g.Objects[id-1].Fields, "", func(_ string, ref int) {
			if ref > 0 && ref < n && !reached[ref] {
				reached[ref] = true
				s.parent[ref], depth[ref] = id, depth[id]+1
				s.order = append(s.order, ref)
			}
		})
	}
	filter := strings.ToLower(o.Filter)
	for _, id := range s.order {
		if filter == "" || strings.Contains(strings.ToLower(g.Objects[id-1].Path), filter) {
			for a := id; a != 0 && !s.inScope[a]; a = s.parent[a] {
				s.inScope[a] = true
			}
		}
	}
	maxDepth, maxNodes, _ := o.limits()
	expanded := make([]bool, n)
	for _, id := range o.Expand {
		if id > 0 && id < n {
			expanded[id] = true
		}
	}
	count := 0
	for _, id := range s.order {
		if !s.inScope[id] {
			continue
		}
		p := s.parent[id]
		switch {
		case p == 0:
			s.shown[id] = true
			count++
		case s.shown[p] && (expanded[p] || depth[id] <= maxDepth && count < maxNodes):
			s.shown[id] = true
			count++
		default:
			a := p
			for !s.shown[a] {
				a = s.parent[a]
			}
			s.folded[a]++
		}
	}
	return s
}

// eachRef calls f for every reference among vals and their inline fields, with its dotted name.
func eachRef(vals []canon.Value, prefix string, f func(name string, ref int)) {
	for _, v := range vals {
		name := fieldName(prefix, v.Name)
		if v.Ref != 0 {
			f(name, v.Ref)
		}
		if len(v.Fields) > 0 {
			eachRef(v.Fields, name, f)
		}
	}
}

// fieldName joins an inline field's name to its parent's: "hdr.seq", "hops[2]".
func fieldName(prefix, name string) string {
	if prefix == "" || strings.HasPrefix(name, "[") {
		return prefix + name
	}
	return prefix + "." + name
}
