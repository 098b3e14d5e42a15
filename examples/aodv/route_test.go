package aodv

import "testing"

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
