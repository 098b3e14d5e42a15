package engine

import (
	"fmt"
	"os"
	"unsafe"
)

// A chunked list grows by chunks of chunkLen entries: appending never copies what it holds, so a
// trail of hundreds of megabytes never needs room for twice itself while it grows, as one slice
// grown by append would. The first chunk grows as a slice does, so a small search stays small and
// in memory. Later chunks, once full, go to a temporary file (the trail is written once and read
// only to rebuild a counterexample, a few entries along one path): memory holds the first chunk
// and the one being filled, whatever the search's size. Without a file (it cannot be made or
// written), full chunks stay in memory, off the Go heap (offheap.go). T must hold no pointers;
// free releases the memory and the file.
type chunked[T any] struct {
	chunks [][]T // chunk k, or nil once it is in the file
	n      int
	file   *os.File // the full chunks after the first; nil until one is written
	noFile bool     // the file could not be made or written: keep chunks in memory
	err    error    // the first failure to read the file back (at returns zero values then)
}

const chunkLen = 1 << 16

func (c *chunked[T]) add(v T) {
	if c.n%chunkLen == 0 && c.n > 0 {
		c.chunks = append(c.chunks, c.nextChunk())
	}
	if c.chunks == nil {
		c.chunks = [][]T{nil}
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
}

// nextChunk returns the memory for a new chunk: the last full one's, once that is in the file.
func (c *chunked[T]) nextChunk() []T {
	k := len(c.chunks) - 1
	if k > 0 && c.spill(k) {
		buf := c.chunks[k][:0]
		c.chunks[k] = nil
		return buf
	}
	return offHeap[T](chunkLen)[:0]
}

// spill writes full chunk k to the file, at k chunks from its start.
func (c *chunked[T]) spill(k int) bool {
	if c.noFile {
		return false
	}
	if c.file == nil {
		f, err := spillFile()
		if err != nil {
			c.noFile = true
			return false
		}
		c.file = f
	}
	if _, err := c.file.WriteAt(asBytes(c.chunks[k]), int64(k)*chunkLen*int64(c.size())); err != nil {
		c.noFile = true
		return false
	}
	return true
}

func (c *chunked[T]) size() int {
	var zero T
	return int(unsafe.Sizeof(zero))
}

func (c *chunked[T]) at(i int) T {
	if ch := c.chunks[i/chunkLen]; ch != nil {
		return ch[i%chunkLen]
	}
	v := make([]T, 1)
	if _, err := c.file.ReadAt(asBytes(v), int64(i)*int64(c.size())); err != nil && c.err == nil {
		c.err = fmt.Errorf("reading the search's trail back from %s: %w", c.file.Name(), err)
	}
	return v[0]
}

func (c *chunked[T]) len() int { return c.n }

// each calls f with every entry in order, reading a chunk in the file with one read (at reads
// one entry a call: for a few entries along one path).
func (c *chunked[T]) each(f func(T)) error {
	var buf []T
	for k, ch := range c.chunks {
		if ch == nil {
			if buf == nil {
				buf = make([]T, chunkLen)
			}
			if _, err := c.file.ReadAt(asBytes(buf), int64(k)*chunkLen*int64(c.size())); err != nil {
				return fmt.Errorf("reading the search's trail back from %s: %w", c.file.Name(), err)
			}
			ch = buf
		}
		for _, v := range ch {
			f(v)
		}
	}
	return nil
}

// free releases the chunks and the file; the list must not be used afterwards.
func (c *chunked[T]) free() {
	for i := 1; i < len(c.chunks); i++ {
		freeOffHeap(c.chunks[i])
	}
	closeSpill(c.file)
	c.chunks, c.n, c.file = nil, 0, nil
}

// capacity is how many entries the list has room for in memory.
func (c *chunked[T]) capacity() int {
	n := 0
	for _, ch := range c.chunks {
		n += cap(ch)
	}
	return n
}

// spilled is how many bytes of the list are in the file.
func (c *chunked[T]) spilled() int64 {
	var n int64
	for k, ch := range c.chunks {
		if k > 0 && ch == nil {
			n += chunkLen * int64(c.size())
		}
	}
	return n
}
