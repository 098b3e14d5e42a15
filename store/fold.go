package store

import (
	"encoding/binary"
	"slices"

	"github.com/cmc-go/cmc/canon"
)

// Apply returns the state after the given steps' changes, applied in order to state (which it
// does not modify). It is how State rebuilds a state from a checkpoint, and how the checkpoints
// themselves are made when a trace is stored, so State(n) is exactly this fold from the trace's
// initial state.
//
// A change names a path, not a position, so the place of an added leaf is a choice: Apply keeps
// every existing leaf where it is, puts a run of added leaves together, and puts the first of a
// run after the leaf nearest to it in path order (digits compared as numbers), at the end of that
// leaf's block: "B.routes[2].dest" lands after the last leaf of "B.routes[1]". Changes that do
// not fit the state are taken leniently: "changed" of a missing path adds it, "added" of a
// present one sets it, "removed" of a missing one does nothing.
func Apply(state []canon.Leaf, steps ...[]canon.Change) []canon.Leaf {
	f := newFold(state)
	for _, cs := range steps {
		f.apply(cs)
	}
	return f.leaves()
}

// A fold is a state being rebuilt: a list in display order, indexed by path, and the paths in
// path order for placing added leaves. Each change costs a map lookup, and an added or removed
// leaf a binary search and a short copy, so folding a 100,000-step trace stays cheap.
type fold struct {
	head, tail *node
	byPath     map[string]*node
	sorted     []string
	n          int
	dups       bool // the state repeated a path (only a malformed one does)
}

type node struct {
	canon.Leaf
	prev, next *node
}

func newFold(state []canon.Leaf) *fold {
	f := &fold{byPath: make(map[string]*node, len(state)), sorted: make([]string, 0, len(state))}
	for _, l := range state {
		nd := &node{Leaf: l}
		f.insertAfter(f.tail, nd)
		if _, dup := f.byPath[l.Path]; dup { // the first wins
			f.dups = true
			continue
		}
		f.byPath[l.Path] = nd
		f.sorted = append(f.sorted, l.Path)
	}
	slices.SortFunc(f.sorted, comparePaths)
	return f
}

func (f *fold) apply(changes []canon.Change) {
	var added *node // the leaf the previous change added, if it did
	for _, c := range changes {
		nd := f.byPath[c.Path]
		switch {
		case c.Kind == "removed":
			if nd != nil {
				f.remove(nd)
			}
			added = nil
		case nd != nil:
			nd.Value = c.New
			added = nil
		default:
			nd = &node{Leaf: canon.Leaf{Path: c.Path, Value: c.New}}
			at := f.place(c.Path)
			if added != nil && commonPrefix(added.Path, c.Path) >= commonPrefix(pathOf(at), c.Path) {
				at = added // a run of added leaves is most likely one new object
			}
			f.insertAfter(at, nd)
			f.byPath[c.Path] = nd
			i, _ := slices.BinarySearchFunc(f.sorted, c.Path, comparePaths)
			f.sorted = slices.Insert(f.sorted, i, c.Path)
			added = nd
		}
	}
}

// place returns the leaf a new leaf at path goes after (nil: at the head).
func (f *fold) place(path string) *node {
	i, _ := slices.BinarySearchFunc(f.sorted, path, comparePaths)
	if i == 0 {
		if len(f.sorted) == 0 {
			return f.tail
		}
		return f.byPath[f.sorted[0]].prev
	}
	at := f.byPath[f.sorted[i-1]]
	// Walk to the end of the block the neighbour is in: its fields need not be in path order.
	p := commonPrefix(at.Path, path)
	for range 256 {
		nx := at.next
		if nx == nil || commonPrefix(nx.Path, path) < p || comparePaths(nx.Path, path) > 0 {
			break
		}
		at = nx
	}
	return at
}

func (f *fold) insertAfter(at, nd *node) {
	nd.prev = at
	if at == nil {
		nd.next, f.head = f.head, nd
	} else {
		nd.next, at.next = at.next, nd
	}
	if nd.next == nil {
		f.tail = nd
	} else {
		nd.next.prev = nd
	}
	f.n++
}

func (f *fold) remove(nd *node) {
	if nd.prev == nil {
		f.head = nd.next
	} else {
		nd.prev.next = nd.next
	}
	if nd.next == nil {
		f.tail = nd.prev
	} else {
		nd.next.prev = nd.prev
	}
	f.n--
	delete(f.byPath, nd.Path)
	if i, ok := slices.BinarySearchFunc(f.sorted, nd.Path, comparePaths); ok {
		f.sorted = slices.Delete(f.sorted, i, i+1)
	}
	if !f.dups {
		return
	}
	// A repeated path of a malformed state takes over the index.
	for o := f.head; o != nil; o = o.next {
		if o.Path == nd.Path {
			f.byPath[o.Path] = o
			i, _ := slices.BinarySearchFunc(f.sorted, o.Path, comparePaths)
			f.sorted = slices.Insert(f.sorted, i, o.Path)
			break
		}
	}
}

func (f *fold) leaves() []canon.Leaf {
	out := make([]canon.Leaf, 0, f.n)
	for nd := f.head; nd != nil; nd = nd.next {
		out = append(out, nd.Leaf)
	}
	return out
}

// appendLeaves encodes the state as appendLeaves in codec.go does, without building it.
func (f *fold) appendLeaves(b []byte, d *dict) []byte {
	for nd := f.head; nd != nil; nd = nd.next {
		b = binary.AppendUvarint(b, d.ref(nd.Path))
		b = binary.AppendUvarint(b, d.ref(nd.Value))
	}
	return b
}

func pathOf(nd *node) string {
	if nd == nil {
		return ""
	}
	return nd.Path
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// comparePaths orders paths as the store keeps them sorted (canon.Path.Compare).
func comparePaths(a, b string) int { return canon.Path(a).Compare(canon.Path(b)) }
