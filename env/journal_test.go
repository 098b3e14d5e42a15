package env

import (
	"bytes"
	"testing"
)

// FuzzJournalLoad: any journal loads or fails with an error, never a panic, and a loaded tree
// still answers positions.
func FuzzJournalLoad(f *testing.F) {
	f.Add([]byte("x cbf29ce484222325 w \"\" 0 \"ECHO a\\n\"\n"))
	f.Add([]byte("x cbf29ce484222325 r \"\" 1 \"abc\"\ns 0000000000000001 2\n"))
	f.Add([]byte("s cbf29ce484222325 0\nx zz w \"\" 0 \"\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := NewPeer(gone{}, PeerOptions{})
		p.Load(bytes.NewReader(b))
		for h, n := range p.cache.t.nodes {
			if n.hash != h {
				t.Fatalf("node indexed at %x has hash %x", h, n.hash)
			}
		}
	})
}
