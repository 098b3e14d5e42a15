package canon_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/cmc-go/cmc/canon"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomized tests (0: from $CANON_SEED, else the clock)")

// testSeed returns the seed of a randomized test and logs it, so a failure can be replayed with
// -seed or CANON_SEED.
func testSeed(t *testing.T) uint64 {
	seed := *seedFlag
	if seed == 0 {
		if s := os.Getenv("CANON_SEED"); s != "" {
			var err error
			if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
				t.Fatalf("CANON_SEED: %v", err)
			}
		}
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -seed=%d or CANON_SEED=%d)", seed, seed, seed)
	return seed
}

// isoNode is a node of a heap that the isomorphism tests build twice, differently.
type isoNode struct {
	id    int
	name  string
	next  *isoNode
	peers map[string]*isoNode
	tags  map[int16]string
	vals  []any
	edges []*isoNode
}

type isoHeap struct {
	roots []*isoNode
	index map[string]*isoNode
	byID  map[int]isoNode // map values that are structs holding pointers
}

// isoDesc describes a heap logically: which node points where, without addresses or map order.
type isoDesc struct {
	n     int
	names []string
	next  []int // -1 is nil
	peers [][]isoEdge
	tags  [][]int16
	vals  [][]int // v < 0: the int -v; v%3 == 0: a pointer to node v/3%n; v%3 == 1: a string; else a float
	edges [][]int
	roots []int
	index []isoEdge
}

type isoEdge struct {
	key string
	to  int
}

// byteSource reads a description from fuzz input; it returns zeros when the input runs out.
type byteSource struct{ b []byte }

func (s *byteSource) next() int {
	if len(s.b) == 0 {
		return 0
	}
	x := int(s.b[0])
	s.b = s.b[1:]
	return x
}

func describe(data []byte) isoDesc {
	s := &byteSource{b: data}
	d := isoDesc{n: 1 + s.next()%8}
	key := func() string { return string(rune('a' + s.next()%6)) }
	for i := range d.n {
		d.names = append(d.names, fmt.Sprintf("n%d", s.next()%4))
		d.next = append(d.next, s.next()%(d.n+1)-1)
		var peers []isoEdge
		seen := map[string]bool{}
		for range s.next() % 4 {
			k := key()
			if !seen[k] {
				seen[k] = true
				peers = append(peers, isoEdge{k, s.next() % d.n})
			}
		}
		d.peers = append(d.peers, peers)
		var tags []int16
		for range s.next() % 4 {
			tags = append(tags, int16(s.next()*257-1000))
		}
		d.tags = append(d.tags, tags)
		var vals []int
		for range s.next() % 4 {
			vals = append(vals, s.next()-60)
		}
		d.vals = append(d.vals, vals)
		var edges []int
		for range s.next() % 3 {
			edges = append(edges, s.next()%(d.n+1)-1)
		}
		d.edges = append(d.edges, edges)
		_ = i
	}
	for range 1 + s.next()%3 {
		d.roots = append(d.roots, s.next()%d.n)
	}
	seen := map[string]bool{}
	for range s.next() % 4 {
		k := key()
		if !seen[k] {
			seen[k] = true
			d.index = append(d.index, isoEdge{k, s.next() % d.n})
		}
	}
	return d
}

// build makes the heap d describes, allocating nodes in an order and filling maps in orders
// that rng picks, with garbage allocated in between so that addresses differ too.
func build(d isoDesc, rng *rand.Rand) *isoHeap {
	var garbage [][]byte
	nodes := make([]*isoNode, d.n)
	for _, i := range rng.Perm(d.n) {
		garbage = append(garbage, make([]byte, rng.IntN(200)))
		nodes[i] = &isoNode{id: i, name: d.names[i]}
	}
	ptr := func(i int) *isoNode {
		if i < 0 {
			return nil
		}
		return nodes[i]
	}
	for _, i := range rng.Perm(d.n) {
		n := nodes[i]
		n.next = ptr(d.next[i])
		if len(d.peers[i]) > 0 {
			n.peers = make(map[string]*isoNode, rng.IntN(20))
		}
		fillMap(rng, n.peers, d.peers[i], nodes)
		if len(d.tags[i]) > 0 {
			n.tags = map[int16]string{}
			for _, j := range rng.Perm(len(d.tags[i])) {
				n.tags[d.tags[i][j]] = fmt.Sprint(d.tags[i][j])
			}
		}
		for _, v := range d.vals[i] {
			switch {
			case v < 0:
				n.vals = append(n.vals, -v)
			case v%3 == 0:
				n.vals = append(n.vals, nodes[v/3%d.n])
			case v%3 == 1:
				n.vals = append(n.vals, fmt.Sprint("s", v))
			default:
				n.vals = append(n.vals, float64(v)/4)
			}
		}
		for _, e := range d.edges[i] {
			n.edges = append(n.edges, ptr(e))
		}
		garbage = append(garbage, make([]byte, rng.IntN(200)))
	}
	h := &isoHeap{index: map[string]*isoNode{}, byID: map[int]isoNode{}}
	for _, r := range d.roots {
		h.roots = append(h.roots, nodes[r])
	}
	fillMap(rng, h.index, d.index, nodes)
	for _, i := range rng.Perm(d.n) {
		h.byID[i] = isoNode{id: i, name: d.names[i], next: nodes[i]}
	}
	_ = garbage
	return h
}

// fillMap inserts the entries in a random order, with keys that come and go in between, so that
// the map's internal layout differs from build to build.
func fillMap(rng *rand.Rand, m map[string]*isoNode, entries []isoEdge, nodes []*isoNode) {
	if m == nil {
		return
	}
	for _, j := range rng.Perm(len(entries)) {
		for range rng.IntN(10) {
			junk := fmt.Sprint("junk", rng.IntN(1000))
			m[junk] = nil
			defer delete(m, junk)
		}
		m[entries[j].key] = nodes[entries[j].to]
	}
}

// checkIsomorphic builds the heap d describes twice and requires one hash.
func checkIsomorphic(t *testing.T, d isoDesc, seed1, seed2 uint64) {
	t.Helper()
	h1 := build(d, rand.New(rand.NewPCG(seed1, 1)))
	h2 := build(d, rand.New(rand.NewPCG(seed2, 2)))
	b1, b2 := encode(t, h1), encode(t, h2)
	if xxhash.Sum64(b1) != xxhash.Sum64(b2) {
		t.Fatalf("one heap, two hashes:\n%x\n%x\ndescription %+v", b1, b2, d)
	}
	// The decoded heap is the same heap again.
	var h3 isoHeap
	if err := canon.Decode(b1, &h3); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if b3 := encode(t, &h3); !bytes.Equal(b1, b3) {
		t.Fatalf("decode then encode changed the bytes")
	}
}

func FuzzIsomorphism(f *testing.F) {
	f.Add([]byte{}, uint64(1), uint64(2))
	f.Add([]byte{7, 1, 3, 3, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10}, uint64(3), uint64(4))
	f.Add(bytes.Repeat([]byte{5, 250, 17, 3, 2, 9}, 40), uint64(5), uint64(6))
	f.Fuzz(func(t *testing.T, data []byte, seed1, seed2 uint64) {
		checkIsomorphic(t, describe(data), seed1, seed2)
	})
}

func TestIsomorphismRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 0))
	for range 300 {
		data := make([]byte, rng.IntN(300))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		checkIsomorphic(t, describe(data), rng.Uint64(), rng.Uint64())
	}
}

// Different heaps hash differently: the check above is not passing because everything collides.
func TestIsomorphismDistinguishes(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 0))
	seen := map[uint64][]byte{}
	for i := range 500 {
		data := []byte{byte(i), byte(i >> 8), 1, 2, 3, 4, 5, 6, 7, 8}
		for j := 2; j < len(data); j++ {
			data[j] = byte(rng.Uint32())
		}
		d := describe(data)
		b := encode(t, build(d, rng))
		h := xxhash.Sum64(b)
		if old, ok := seen[h]; ok && !bytes.Equal(old, b) {
			t.Fatalf("xxhash collision") // astronomically unlikely
		}
		seen[h] = b
	}
	if len(seen) < 100 {
		t.Fatalf("only %d distinct hashes from 500 random heaps", len(seen))
	}
}
