package env

import (
	"io"
	"testing"

	"github.com/cmc-go/cmc/internal/transition"
)

// memEcho is an in-memory echo peer: what the cache costs without a network.
type memEcho struct{ pending []byte }

func (e *memEcho) Dial() (io.ReadWriteCloser, error) { return e, nil }
func (e *memEcho) Write(b []byte) (int, error) {
	e.pending = append(e.pending, b...)
	return len(b), nil
}
func (e *memEcho) Read(b []byte) (int, error) {
	n := copy(b, e.pending)
	e.pending = e.pending[n:]
	return n, nil
}
func (e *memEcho) Close() error { return nil }

// BenchmarkCacheLinear is the cache's own cost per 10 KB written and read back beyond the cache.
func BenchmarkCacheLinear(b *testing.B) {
	defer transition.Install(quiet{})()
	msg, back := make([]byte, 10000), make([]byte, 10000)
	b.SetBytes(2 * 10000)
	p := NewPeer(&memEcho{}, PeerOptions{})
	c := p.Dial("c")
	for i := range b.N {
		if i%100 == 0 {
			p = NewPeer(&memEcho{}, PeerOptions{})
			c = p.Dial("c")
		}
		c.Write(msg)
		io.ReadFull(c, back)
	}
}

func BenchmarkStreamHash(b *testing.B) {
	buf := make([]byte, 10000)
	b.SetBytes(10000)
	var h uint64
	for range b.N {
		h = streamHash(h, buf)
	}
	_ = h
}

// TestStreamHashIsByteWise: the unrolled hash equals the byte-at-a-time fold, split anywhere,
// which is what lets the cache split a node without changing any position's hash.
func TestStreamHashIsByteWise(t *testing.T) {
	b := []byte("*2\r\n$4\r\nINCR\r\n$4\r\nhits\r\n and some more bytes to pass eight")
	var want uint64 = rootHash
	for _, c := range b {
		want = want*hashBase + uint64(c)
	}
	for k := range len(b) + 1 {
		if got := streamHash(streamHash(rootHash, b[:k]), b[k:]); got != want {
			t.Fatalf("split at %d: %x, want %x", k, got, want)
		}
	}
}
