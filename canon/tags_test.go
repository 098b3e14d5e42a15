package canon_test

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

type logger struct{ lines []string }

type tagged struct {
	id    int
	log   *logger      `cmc:"-"` // tooling, not state
	out   chan string  `cmc:"-"` // excluded, so not rejected either
	cache map[int]bool `cmc:"-"`
	inbox []Msg        `cmc:"set"`
	peers []uint8      `cmc:"set"`
	child *tagged
}

func TestExcludedFields(t *testing.T) {
	a := &tagged{id: 1, log: &logger{lines: []string{"x"}}, out: make(chan string), cache: map[int]bool{1: true}}
	b := &tagged{id: 1}
	if !bytes.Equal(encode(t, a), encode(t, b)) {
		t.Fatal(`a cmc:"-" field changes the encoding`)
	}

	// Decode leaves the root's excluded fields as they are, and zeroes them in objects it creates.
	a.child = &tagged{id: 2, log: &logger{}}
	enc := encode(t, a)
	keep := &logger{lines: []string{"kept"}}
	got := &tagged{log: keep, cache: map[int]bool{7: true}}
	if err := canon.Decode(enc, got); err != nil {
		t.Fatal(err)
	}
	if got.id != 1 || got.log != keep || !got.cache[7] || got.out != nil {
		t.Errorf("root after decode: %+v", got)
	}
	if got.child == nil || got.child.id != 2 || got.child.log != nil {
		t.Errorf("child after decode: %+v", got.child)
	}
}

func TestSetOrderIgnored(t *testing.T) {
	rng := rand.New(rand.NewPCG(testSeed(t), 0))
	msgs := []Msg{{"a"}, {"b"}, {"b"}, {""}, {"zz"}}
	peers := []uint8{3, 200, 1, 1, 0}
	want := encode(t, &tagged{inbox: msgs, peers: peers})
	for range 20 {
		m, p := slices.Clone(msgs), slices.Clone(peers)
		rng.Shuffle(len(m), func(i, j int) { m[i], m[j] = m[j], m[i] })
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		if got := encode(t, &tagged{inbox: m, peers: p}); !bytes.Equal(got, want) {
			t.Fatalf("set order %v %v changes the encoding", m, p)
		}
	}
	// Decode gives the set back in canonical order, whatever order was encoded.
	var got tagged
	if err := canon.Decode(want, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.inbox, []Msg{{""}, {"a"}, {"b"}, {"b"}, {"zz"}}) {
		t.Errorf("decoded inbox %v", got.inbox)
	}
	if len(got.peers) != 5 {
		t.Errorf("decoded peers %v", got.peers)
	}
	if !bytes.Equal(encode(t, &got), want) {
		t.Error("decode then encode changed the bytes")
	}
	// A set is still a multiset: one message more or less is another state.
	if bytes.Equal(encode(t, &tagged{inbox: msgs[:4], peers: peers}), want) {
		t.Error("dropping a duplicate from a set does not change the encoding")
	}
}

// SortSets sorts sets held in unexported fields too, in place, into the order Decode gives.
func TestSortSetsUnexported(t *testing.T) {
	s := &tagged{inbox: []Msg{{"zz"}, {"a"}, {""}}, peers: []uint8{3, 1, 2}}
	var enc canon.Encoder
	if err := enc.SortSets([]canon.Root{{Name: "s", V: reflect.ValueOf(s)}}); err != nil {
		t.Fatal(err)
	}
	var decoded tagged
	if err := canon.Decode(encode(t, s), &decoded); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.inbox, decoded.inbox) || !slices.Equal(s.peers, decoded.peers) {
		t.Errorf("sorted in place: %v %v; decoded: %v %v", s.inbox, s.peers, decoded.inbox, decoded.peers)
	}
}
