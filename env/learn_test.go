package env

import (
	"strconv"
	"testing"

	"github.com/cmc-go/cmc"
)

// FuzzLearn: any sequence of notes (a stored trace may be edited or come from another model)
// is learnt without a panic, and leaves a tree whose every node is indexed by its own hash.
func FuzzLearn(f *testing.F) {
	f.Add(byte(0), []byte{0, 1, 2, 1, 2, 3, 4}, "ECHO a\n")
	f.Add(byte(1), []byte{0, 5, 1, 7, 2, 3, 4}, "INCR k\n")
	f.Add(byte(2), []byte{0, 1, 2, 2, 3, 1, 2}, "abc")
	f.Fuzz(func(t *testing.T, mode byte, ops []byte, data string) {
		kinds := []string{NoteOpen, NoteWrite, NoteRead, NoteEnd, NoteClose}
		var notes []cmc.Note
		for i, b := range ops {
			conn := "db/" + string(rune('a'+b/5%2))
			msg := ""
			if len(data) > 0 {
				msg = strconv.Quote(data[i%len(data):])
			}
			if b%7 == 6 {
				msg = data // not quoted: skipped
			}
			n := cmc.Note{Kind: kinds[b%5], To: conn, Msg: msg}
			if n.Kind == NoteRead || n.Kind == NoteEnd {
				n.From, n.To = conn, ""
			}
			notes = append(notes, n)
		}
		p := NewPeer(gone{}, PeerOptions{Name: "db", Shared: mode&1 != 0, Datagrams: mode&2 != 0})
		if err := p.Learn(notes); err != nil {
			t.Fatal(err)
		}
		for h, n := range p.cache.t.nodes {
			if n.hash != h {
				t.Fatalf("node indexed at %x has hash %x", h, n.hash)
			}
		}
	})
}
