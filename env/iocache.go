package env

import (
	"bytes"
	"fmt"
	"strconv"
)

// The I/O cache (Artho et al., "Efficient model checking of applications with input/output"),
// as a tree of conversations. Everything a checked program said to a peer and heard from it is a
// history: a sequence of events (bytes written on a connection, bytes read from it, the peer
// ending a connection, and in shared mode opening and closing connections). Histories that
// explored paths produced share their common prefixes in one tree; where two paths wrote
// different bytes the tree branches (the seed aborts there).
//
// A position in the tree is what the checked state holds: one 64-bit hash of the history up to
// it. The hash reads bytes as a stream (a polynomial hash, so two reads of 3 and 4 bytes hash as
// one read of 7), and mixes in a tag only where the connection or the kind of event changes. So a
// node can be split anywhere inside its bytes without changing the hash of any position that
// already exists: a read that takes part of a recorded chunk, or a write that departs from a
// recorded one halfway, only adds a position. The bytes live here, outside the state.

// An eventKind is what happened on a connection.
type eventKind byte

const (
	evWrite eventKind = 'w' // the program wrote Data
	evRead  eventKind = 'r' // the peer's Data arrived (one chunk, as the first read met it)
	evEnd   eventKind = 'e' // a read ended: Data is "EOF" or the error's text
	evOpen  eventKind = 'o' // shared mode: the program opened the connection
	evClose eventKind = 'c' // shared mode: the program closed it
)

// streams reports whether consecutive events of the kind are one byte stream.
func (k eventKind) streams() bool { return k == evWrite || k == evRead }

type event struct {
	kind eventKind
	conn string // the connection's key in shared mode, else ""
	data []byte
}

func (e event) String() string {
	return fmt.Sprintf("%c%q %s", e.kind, e.conn, strconv.Quote(string(e.data)))
}

// A node is one event; its hash is the position at its end.
type node struct {
	ev     event
	hash   uint64
	parent *node
	kids   []*node // in the order they were first recorded
	// chunkEnd marks where a physical read ended, as opposed to a split a shorter read made:
	// a read returns bytes up to the next chunk end, whichever reads split the chunk before.
	chunkEnd bool
}

const (
	hashBase = 1099511628211 // odd: a multiplication by it is a bijection mod 2^64
	rootHash = 14695981039346656037
)

// tag mixes a change of connection or kind into h (values above 255 are never bytes).
func tag(h uint64, e event) uint64 {
	h = h*hashBase + 0x100 + uint64(e.kind)<<40 + uint64(len(e.conn))
	return streamHash(h, []byte(e.conn))*hashBase + 0x1ff
}

// streamHash continues h over b, eight bytes per round so the multiplications do not wait on
// each other; the result equals b's bytes folded one at a time (h = h*hashBase + byte).
func streamHash(h uint64, b []byte) uint64 {
	const b1 = uint64(hashBase)
	for len(b) >= 8 {
		h = h*pw[8] + uint64(b[0])*pw[7] + uint64(b[1])*pw[6] + uint64(b[2])*pw[5] + uint64(b[3])*pw[4] +
			uint64(b[4])*pw[3] + uint64(b[5])*pw[2] + uint64(b[6])*b1 + uint64(b[7])
		b = b[8:]
	}
	for _, c := range b {
		h = h*b1 + uint64(c)
	}
	return h
}

// pw holds the powers of hashBase mod 2^64.
var pw = func() (p [9]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * hashBase
	}
	return p
}()

// continues reports whether e continues the byte stream of the event before it.
func continues(prev *node, e event) bool {
	return e.kind.streams() && prev.ev.kind == e.kind && prev.ev.conn == e.conn
}

// endHash is the hash at the end of e placed after prev.
func endHash(prev *node, e event) uint64 {
	h := prev.hash
	if !continues(prev, e) {
		h = tag(h, e)
	}
	return streamHash(h, e.data)
}

// A tree is the cache's conversations.
type tree struct {
	root  *node
	nodes map[uint64]*node // by hash: every position a state may hold
}

func newTree() *tree {
	r := &node{hash: rootHash}
	return &tree{root: r, nodes: map[uint64]*node{rootHash: r}}
}

// at is the node at position h.
func (t *tree) at(h uint64) (*node, error) {
	n := t.nodes[h]
	if n == nil {
		return nil, fmt.Errorf("position %016x is not in this instance's I/O cache: the state was made by another instance of the model (check with one instance: -workers 1)", h)
	}
	return n, nil
}

// add puts n under parent and indexes it; a hash that already names another position is a
// collision, which is refused rather than merging two histories.
func (t *tree) add(parent, n *node) {
	if old := t.nodes[n.hash]; old != nil && old != n {
		panic(fmt.Sprintf("env: I/O cache hash collision at %016x between %v and %v", n.hash, old.ev, n.ev))
	}
	n.parent = parent
	parent.kids = append(parent.kids, n)
	t.nodes[n.hash] = n
}

// split cuts n after k bytes: a new node holds the first k, and n keeps the rest, its hash, its
// children and its identity (a physical conversation at n stays there).
func (t *tree) split(n *node, k int) *node {
	p := n.parent
	head := &node{ev: event{n.ev.kind, n.ev.conn, n.ev.data[:k:k]}}
	head.hash = endHash(p, head.ev)
	for i, kid := range p.kids {
		if kid == n {
			p.kids[i] = head
		}
	}
	if old := t.nodes[head.hash]; old != nil {
		panic(fmt.Sprintf("env: I/O cache hash collision at %016x splitting %v", head.hash, n.ev))
	}
	head.parent = p
	t.nodes[head.hash] = head
	n.ev.data = n.ev.data[k:]
	n.parent = head
	head.kids = []*node{n}
	return head
}

// stream finds the child of n that continues the byte stream of kind and conn, if any: for a
// read, the peer's next chunk; for a write, the recorded write beginning with first.
func (n *node) stream(kind eventKind, conn string, first byte) *node {
	for _, k := range n.kids {
		if k.ev.kind == kind && k.ev.conn == conn && (kind == evRead || k.ev.data[0] == first) {
			return k
		}
	}
	return nil
}

// child finds the child of n that is exactly e (an end, open or close).
func (n *node) child(e event) *node {
	for _, k := range n.kids {
		if k.ev.kind == e.kind && k.ev.conn == e.conn && bytes.Equal(k.ev.data, e.data) {
			return k
		}
	}
	return nil
}

// matchWrite follows d through the recorded writes from n: it returns the node where the
// recorded bytes end (splitting a node d ends inside) and the part of d beyond what is recorded
// (empty when all of d was). Where a recorded write departs from d, that node is split there and
// diverged is true.
func (t *tree) matchWrite(n *node, conn string, d []byte) (at *node, rest []byte, diverged bool) {
	for len(d) > 0 {
		k := n.stream(evWrite, conn, d[0])
		if k == nil {
			return n, d, len(n.kids) > 0
		}
		m := commonPrefix(k.ev.data, d)
		if m < len(k.ev.data) {
			return t.split(k, m), d[m:], m < len(d)
		}
		n, d = k, d[m:]
	}
	return n, nil, false
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// extend records e after n (e's bytes already known to be new there) and returns its node.
func (t *tree) extend(n *node, e event, chunkEnd bool) *node {
	if !e.kind.streams() {
		if k := n.child(e); k != nil {
			return k
		}
	}
	k := &node{ev: e, chunkEnd: chunkEnd}
	k.hash = endHash(n, e)
	t.add(n, k)
	return k
}

// path is the events from the root to n, consecutive parts of one stream joined.
func (n *node) path() []event {
	var rev []*node
	for p := n; p.parent != nil; p = p.parent {
		rev = append(rev, p)
	}
	var out []event
	for i := len(rev) - 1; i >= 0; i-- {
		e := rev[i].ev
		if l := len(out); l > 0 && e.kind.streams() && out[l-1].kind == e.kind && out[l-1].conn == e.conn {
			out[l-1].data = append(out[l-1].data, e.data...)
			continue
		}
		e.data = append([]byte(nil), e.data...)
		out = append(out, e)
	}
	return out
}
