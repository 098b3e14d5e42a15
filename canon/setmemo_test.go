package canon_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/cmc-go/cmc/canon"
)

type memoMsg struct {
	Kind string
	To   int
}

type memoHolder struct {
	Sent []memoMsg `cmc:"set"`
	Seen []int     `cmc:"set"`
}

// An encoder that remembers the last set of each type it wrote encodes every set as an encoder
// that remembers nothing does, whatever happened to the set since: elements appended, removed,
// changed in place, the whole set rebuilt with equal strings at other addresses, or put in another
// order.
func TestSetMemoEncodesAsWithout(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	kinds := []string{"Prepared", "Commit", "Abort"}
	h := &memoHolder{}
	var kept canon.Encoder
	for step := range 5000 {
		switch op := rng.IntN(10); {
		case op < 4 || len(h.Sent) == 0: // append, as a handler sends
			h.Sent = append(h.Sent, memoMsg{kinds[rng.IntN(len(kinds))], rng.IntN(5)})
			h.Seen = append(h.Seen, rng.IntN(50))
		case op == 4: // restore an earlier value: a fresh array, as a decode gives
			h.Sent = append([]memoMsg(nil), h.Sent[:rng.IntN(len(h.Sent)+1)]...)
		case op == 5: // change an element in place
			h.Sent[rng.IntN(len(h.Sent))].To = rng.IntN(5)
		case op == 6: // the same text at another address
			i := rng.IntN(len(h.Sent))
			h.Sent[i].Kind = fmt.Sprint(h.Sent[i].Kind)
		case op == 7: // remove one, keeping the order of the rest
			i := rng.IntN(len(h.Sent))
			h.Sent = append(h.Sent[:i:i], h.Sent[i+1:]...)
		case op == 8: // reorder
			rng.Shuffle(len(h.Sent), func(i, j int) { h.Sent[i], h.Sent[j] = h.Sent[j], h.Sent[i] })
		default: // shrink, keeping the array
			h.Sent = h.Sent[:rng.IntN(len(h.Sent)+1)]
		}
		got, err := kept.Encode(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		var fresh canon.Encoder
		want, err := fresh.Encode(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("step %d, set %v: encoded %x, want %x", step, h.Sent, got, want)
		}
	}
}

// A set is restored with room for one more element, which holds zero: a handler's append to it
// (a message sent) writes in place instead of copying the set, and the restored value still counts
// as decoded. Non-set slices keep exactly their capacity.
func TestSetRestoredWithRoom(t *testing.T) {
	type holder struct {
		Sent []memoMsg `cmc:"set"`
		Log  []int
	}
	h := &holder{Sent: []memoMsg{{"Commit", 0}, {"Prepared", 1}, {"Prepared", 2}}, Log: []int{1, 2, 3}}
	var enc canon.Encoder
	b, _, _ := capture(t, &enc, root("h", h))
	var into holder
	if err := canon.DecodeValue(b[0], reflect.ValueOf(&into)); err != nil {
		t.Fatal(err)
	}
	if len(into.Sent) != 3 || cap(into.Sent) <= 3 {
		t.Fatalf("restored set has len %d cap %d, want 3 and room for more", len(into.Sent), cap(into.Sent))
	}
	if cap(into.Log) != 3 {
		t.Errorf("restored slice has cap %d, want exactly 3 (capacity is state)", cap(into.Log))
	}
	_, asDecoded, _ := capture(t, &enc, root("h", &into))
	if !asDecoded[0] {
		t.Error("a restored set with zeros past its end does not count as decoded")
	}
	if n := testing.AllocsPerRun(10, func() { _ = append(into.Sent, memoMsg{"Abort", 0}) }); n != 0 {
		t.Errorf("appending to a restored set allocated %v times", n)
	}
}
