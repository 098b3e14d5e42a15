package views

import (
	"reflect"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// bigGraph is a heap of about 320 objects: three nodes with maps of pointers and a chain of 100
// buffers each, like the browser tests' "big" trace.
func bigGraph() *canon.Graph {
	type buf struct {
		N    int
		Next *buf
	}
	type peer struct{ ID, Got, Last int }
	type nodeT struct {
		ID    int
		Acked map[int]bool
		Peers map[int]*peer
		Pool  *buf
	}
	var roots []canon.Root
	for i := range 3 {
		n := &nodeT{ID: i, Acked: map[int]bool{}, Peers: map[int]*peer{}}
		for j := range 3 {
			if j != i {
				n.Peers[j] = &peer{ID: j}
			}
		}
		for k := 100; k > 0; k-- {
			n.Pool = &buf{N: k, Next: n.Pool}
		}
		roots = append(roots, canon.Root{Name: string(rune('A' + i)), V: reflect.ValueOf(n)})
	}
	return canon.NewGraph(roots)
}

// BenchmarkHeapAll is the server's share of a heap update with every object drawn: shaping the
// DOT and encoding the reply.
func BenchmarkHeapAll(b *testing.B) {
	g := bigGraph()
	b.ReportMetric(float64(len(g.Objects)), "objects")
	for b.Loop() {
		v := Heap(g, GraphOptions{MaxDepth: -1, MaxNodes: -1}, nil)
		if _, err := encode(Reply{Result: v}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHeapDefault(b *testing.B) {
	g := bigGraph()
	for b.Loop() {
		v := Heap(g, GraphOptions{}, nil)
		if _, err := encode(Reply{Result: v}); err != nil {
			b.Fatal(err)
		}
	}
}
