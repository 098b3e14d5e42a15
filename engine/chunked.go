package engine

// A chunked list grows by chunks of chunkLen entries: appending never copies what it holds, so a
// trail of hundreds of megabytes never needs room for twice itself while it grows, as one slice
// grown by append would. The first chunk grows as a slice does, so a small search stays small.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkLen = 1 << 16

func (c *chunked[T]) add(v T) {
	if c.n%chunkLen == 0 && c.n > 0 {
		c.chunks = append(c.chunks, make([]T, 0, chunkLen))
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

// capacity is how many entries the list has room for.
func (c *chunked[T]) capacity() int {
	n := 0
	for _, ch := range c.chunks {
		n += cap(ch)
	}
	return n
}
