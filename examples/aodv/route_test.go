package aodv

import (
	"cmp"
	"slices"
	"testing"
)

func TestSeqNewer(t *testing.T) {
	for _, tc := range []struct {
		a, b uint32
		want bool
	}{
		{1, 0, true},
		{0, 1, false},
		{5, 5, false},
		{0, 0xffffffff, true}, // wrapped around: 0 follows the largest number
		{0xffffffff, 0, false},
		{0x80000000, 1, true},
		{0x80000001, 1, false}, // half the circle away: RFC 3561's signed difference is negative
	} {
		if got := SeqNewer(tc.a, tc.b); got != tc.want {
			t.Errorf("SeqNewer(%#x, %#x) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestRouteFresher(t *testing.T) {
	valid := Route{Seq: 5, ValidSeq: true, Hops: 3, Valid: true}
	invalid := Route{Seq: 5, ValidSeq: true, Hops: Infinity}
	unknown := Route{Hops: 1, Valid: true}
	for _, tc := range []struct {
		name string
		rt   Route
		seq  uint32
		hops uint8
		want bool
	}{
		{"newer seq, longer", valid, 6, 9, true},
		{"older seq, shorter", valid, 4, 1, false},
		{"same seq, shorter", valid, 5, 2, true},
		{"same seq, as long", valid, 5, 3, false},
		{"same seq over invalid", invalid, 5, 9, true},
		{"older seq over invalid", invalid, 4, 1, false},
		{"anything over unknown seq", unknown, 0, 7, true},
	} {
		if got := tc.rt.fresher(tc.seq, tc.hops); got != tc.want {
			t.Errorf("%s: fresher(%d, %d) over %v = %v", tc.name, tc.seq, tc.hops, tc.rt, got)
		}
	}
}

func TestRoutesAreCopies(t *testing.T) {
	n := newLine(t, Config{}, 3)
	request(t, n, 0, 2)
	r := n.nodes[1]
	routes := r.Routes()
	routes[0].Precursors[0] = 99
	routes[0].Valid = false
	if rt, _ := r.Route(routes[0].Dest); !rt.Valid || rt.Precursors[0] == 99 {
		t.Errorf("Routes exposed the router's own table: %v", rt)
	}
}

// TestFindAsBinarySearch: find answers as slices.BinarySearchFunc on the table's destinations
// does (it searches by index only so as not to copy a Route per comparison), on every table of up
// to four entries over destinations 0 to 3, duplicates and unsorted ones included.
func TestFindAsBinarySearch(t *testing.T) {
	var tables [][]NodeID
	var grow func(dests []NodeID)
	grow = func(dests []NodeID) {
		tables = append(tables, slices.Clone(dests))
		if len(dests) < 4 {
			for d := range NodeID(4) {
				grow(append(dests, d))
			}
		}
	}
	grow(nil)
	for _, dests := range tables {
		r := &Router{}
		for _, d := range dests {
			r.routes = append(r.routes, Route{Dest: d})
		}
		for dest := range NodeID(5) {
			i, ok := r.find(dest)
			wi, wok := slices.BinarySearchFunc(r.routes, dest, func(rt Route, d NodeID) int { return cmp.Compare(rt.Dest, d) })
			if i != wi || ok != wok {
				t.Errorf("table %v: find(%v) = %d, %v; slices.BinarySearchFunc says %d, %v", dests, dest, i, ok, wi, wok)
			}
		}
	}
}
