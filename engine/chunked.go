package engine

// A chunked list grows by chunks of chunkLen entries: appending never copies what it holds, so a
// trail of hundreds of megabytes never needs room for twice itself while it grows, as one slice
// grown by append would. The first chunk grows as a slice does, so a small search stays small; the
// others are off the Go heap (offheap.go), so T must hold no pointers, and free releases them.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkLen = 1 << 16

func (c *chunked[T]) add(v T) {
	if c.n%chunkLen == 0 && c.n > 0 {
		c.chunks = append(c.chunks, offHeap[T](chunkLen)[:0])
	}
	if c.chunks == nil {
		c.chunks = [][]T{nil}
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
}

func (c *chunked[T]) at(i int) T { return c.chunks[i/chunkLen][i%chunkLen] }

func (c *chunked[T]) len() int { return c.n }

// free releases the chunks; the list must not be used afterwards.
func (c *chunked[T]) free() {
	for i := 1; i < len(c.chunks); i++ {
		freeOffHeap(c.chunks[i])
	}
	c.chunks, c.n = nil, 0
}

// capacity is how many entries the list has room for.
func (c *chunked[T]) capacity() int {
	n := 0
	for _, ch := range c.chunks {
		n += cap(ch)
	}
	return n
}
