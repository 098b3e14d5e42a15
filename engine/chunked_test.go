package engine

import "testing"

// Entries read back as added across chunk boundaries, and growing never copies a full chunk.
func TestChunked(t *testing.T) {
	var c chunked[int32]
	const n = 3*chunkLen + 5
	var first *int32
	for i := range n {
		c.add(int32(i))
		if i == chunkLen {
			first = &c.chunks[0][0]
		}
	}
	if &c.chunks[0][0] != first {
		t.Error("the first chunk moved after it was full")
	}
	if c.len() != n || len(c.chunks) != 4 {
		t.Fatalf("len %d in %d chunks, want %d in 4", c.len(), len(c.chunks), n)
	}
	for _, i := range []int{0, 1, chunkLen - 1, chunkLen, 2*chunkLen + 7, n - 1} {
		if got := c.at(i); got != int32(i) {
			t.Errorf("at(%d) = %d", i, got)
		}
	}
	c.free() // unmaps the chunks after the first
	if c.len() != 0 {
		t.Errorf("len %d after free", c.len())
	}
	freeOffHeap(make([]int32, 8)) // a slice from make is left to the garbage collector
}
