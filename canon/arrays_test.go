package canon_test

import (
	"bytes"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// Slices that share a backing array inside one component are captured as references to that
// array: restored, they share it again, with Go's capacities, and an append through one writes
// where the other sees it.
func TestSharedBackingArrayRoundTrip(t *testing.T) {
	backing := []int{1, 2, 3, 4, 5}
	s := &sharedSliceNode{a: backing[:2], b: backing[1:3]}
	var got sharedSliceNode
	if err := canon.Decode(encode(t, s), &got); err != nil {
		t.Fatal(err)
	}
	if !equalInts(got.a, []int{1, 2}) || !equalInts(got.b, []int{2, 3}) {
		t.Fatalf("restored a=%v b=%v", got.a, got.b)
	}
	if cap(got.a) != cap(s.a) || cap(got.b) != cap(s.b) {
		t.Fatalf("capacities %d, %d; Go's are %d, %d", cap(got.a), cap(got.b), cap(s.a), cap(s.b))
	}
	if &got.a[1] != &got.b[0] {
		t.Fatal("a[1] and b[0] are no longer one element")
	}
	got.a = append(got.a, 99) // writes backing[2], which is b[1], as in Go
	if got.b[1] != 99 {
		t.Fatalf("after append through a, b = %v; want b[1] = 99 as in Go", got.b)
	}
}

// A slice cut short by a full slice expression (as etcd raft's MemoryStorage.Entries returns its
// log) shares the array with the whole, and keeps its short capacity.
func TestSharedBackingArrayFullSliceExpression(t *testing.T) {
	backing := []int{1, 2, 3, 4}
	s := &sharedSliceNode{a: backing[1:3:3], b: backing}
	var got sharedSliceNode
	if err := canon.Decode(encode(t, s), &got); err != nil {
		t.Fatal(err)
	}
	if cap(got.a) != 2 || cap(got.b) != 4 || &got.a[0] != &got.b[1] {
		t.Fatalf("restored a=%v (cap %d) b=%v (cap %d); want a within b, caps 2 and 4", got.a, cap(got.a), got.b, cap(got.b))
	}
	got.a = append(got.a, 9) // beyond a's capacity: copies, as in Go, and b is untouched
	if got.b[3] != 4 {
		t.Fatalf("append past a full slice expression's capacity wrote b: %v", got.b)
	}
}

// The encoding says what is shared, not where it is: two states with the same sharing encode the
// same, one without it differently, and elements no slice can see are not state.
func TestSharedBackingArrayCanonical(t *testing.T) {
	one := []int{1, 2, 3, 4, 5}
	two := []int{1, 2, 3, 4, 7} // differs only where no slice's length reaches
	x := encode(t, &sharedSliceNode{a: one[:2], b: one[2:4]})
	y := encode(t, &sharedSliceNode{a: two[:2], b: two[2:4]})
	if !bytes.Equal(x, y) {
		t.Error("the same sharing encodes differently (addresses, or an element no slice sees, leaked in)")
	}
	apart := &sharedSliceNode{a: append(make([]int, 0, 5), 1, 2), b: append(make([]int, 0, 3), 3, 4)}
	if bytes.Equal(x, encode(t, apart)) {
		t.Error("shared and separate arrays with equal contents and capacities encode the same")
	}
	// Decoding and encoding again gives the same bytes.
	var got sharedSliceNode
	if err := canon.Decode(x, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, encode(t, &got)) {
		t.Error("a restored state encodes differently")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
