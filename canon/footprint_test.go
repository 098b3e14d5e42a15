package canon_test

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// capture encodes the roots in one capture and returns each one's bytes, whether it is as Decode
// would give it (AsDecoded), and its footprint (nil when it has none).
func capture(t *testing.T, enc *canon.Encoder, roots ...canon.Root) (bytes [][]byte, asDecoded []bool, fps []*canon.Footprint) {
	t.Helper()
	bytes = make([][]byte, len(roots))
	asDecoded = make([]bool, len(roots))
	fps = make([]*canon.Footprint, len(roots))
	err := enc.EncodeComponents(roots, func(i int, b []byte) {
		bytes[i] = append([]byte(nil), b...)
		asDecoded[i] = enc.AsDecoded()
		fp := new(canon.Footprint)
		if enc.Footprint(fp) {
			fps[i] = fp
		}
	}, nil)
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	return bytes, asDecoded, fps
}

func root(name string, p any) canon.Root { return canon.Root{Name: name, V: reflect.ValueOf(p)} }

type cached struct {
	N    int
	Hits int `cmc:"-"`
}

type liveHolder struct {
	Own   cached  // inline in the root: Decode keeps its Hits
	Far   *cached // elsewhere: Decode makes its Hits zero
	Set   []int   `cmc:"set"`
	Buf   []int
	Ratio float64
}

// A value is as decoded exactly when restoring its bytes would give the program the same value:
// each way a live value can differ from its restored copy while encoding the same is caught.
func TestAsDecoded(t *testing.T) {
	fresh := func() *liveHolder {
		return &liveHolder{Far: &cached{N: 1}, Set: []int{1, 2, 3}, Buf: make([]int, 2, 4)}
	}
	for _, c := range []struct {
		name   string
		change func(h *liveHolder)
		want   bool
	}{
		{"as built", func(h *liveHolder) {}, true},
		{"hidden field of a pointee, zero", func(h *liveHolder) { h.Far.Hits = 0 }, true},
		{"hidden field in the root", func(h *liveHolder) { h.Own.Hits = 7 }, true},
		{"hidden field of a pointee", func(h *liveHolder) { h.Far.Hits = 7 }, false},
		{"set out of order", func(h *liveHolder) { h.Set = []int{3, 1, 2} }, false},
		{"set with spare capacity", func(h *liveHolder) { h.Set = append(make([]int, 0, 8), 1, 2, 3) }, true},
		{"set with a stale element past its end", func(h *liveHolder) { h.Set = append(h.Set, 4)[:3] }, false},
		{"spare capacity of zeros", func(h *liveHolder) { h.Buf = h.Buf[:1] }, true},
		{"spare capacity with a stale element", func(h *liveHolder) { h.Buf[1] = 5; h.Buf = h.Buf[:1] }, false},
		{"NaN", func(h *liveHolder) { h.Ratio = math.NaN() }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := fresh()
			c.change(h)
			var enc canon.Encoder
			_, asDecoded, _ := capture(t, &enc, root("h", h))
			if asDecoded[0] != c.want {
				t.Errorf("AsDecoded = %v, want %v", asDecoded[0], c.want)
			}
		})
	}
}

type withMap struct{ M map[string]int }

// A footprint says whether a value changed, however deep the change, and a value with a map has
// none.
func TestFootprint(t *testing.T) {
	type node struct {
		Name string
		Next *node
		Vals []int
	}
	for _, c := range []struct {
		name   string
		change func(n *node)
		same   bool
	}{
		{"nothing", func(n *node) {}, true},
		{"the same string again", func(n *node) { n.Name = strings.Clone(n.Name) }, false}, // another pointer: encoded again, safely
		{"a root field", func(n *node) { n.Name = "other" }, false},
		{"a pointee's field", func(n *node) { n.Next.Name = "x" }, false},
		{"a slice element", func(n *node) { n.Next.Vals[1] = 9 }, false},
		{"spare capacity", func(n *node) { n.Next.Vals[:3][2] = 9 }, false},
		{"a new pointee with the same contents", func(n *node) { c := *n.Next; n.Next = &c }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := &node{Name: "a", Next: &node{Name: "b", Vals: make([]int, 2, 3)}}
			var enc canon.Encoder
			_, _, fps := capture(t, &enc, root("n", n))
			if fps[0] == nil {
				t.Fatal("no footprint for a value of structs, pointers and slices")
			}
			c.change(n)
			if got := fps[0].Same(); got != c.same {
				t.Errorf("Same() = %v, want %v", got, c.same)
			}
		})
	}
	// A map's memory is not flat: its entries are copied out. Same looks them up again, and a
	// restore puts them back into the same map.
	var enc canon.Encoder
	w := &withMap{M: map[string]int{"a": 1, "b": 2}}
	b, _, fps := capture(t, &enc, root("m", w))
	if fps[0] == nil || !fps[0].Same() {
		t.Fatalf("a capture of a value holding a map of strings: footprint %v, want one that says the same", fps[0])
	}
	var dec canon.Decoder
	if err := dec.DecodeValue(b[0], reflect.ValueOf(w)); err != nil {
		t.Fatal(err)
	}
	var fp canon.Footprint
	if !dec.Footprint(&fp) {
		t.Fatal("no footprint for a decoded value holding a map")
	}
	for _, c := range []struct {
		name   string
		change func()
	}{
		{"a value", func() { w.M["a"] = 3 }},
		{"a key", func() { delete(w.M, "a"); w.M["c"] = 1 }},
		{"an entry more", func() { w.M["c"] = 3 }},
		{"an entry less", func() { delete(w.M, "b") }},
		{"another map with the same entries", func() { w.M = map[string]int{"a": 1, "b": 2} }},
	} {
		if !fp.Same() {
			t.Fatalf("before changing %s: the footprint does not say the same", c.name)
		}
		m := w.M
		c.change()
		if fp.Same() {
			t.Errorf("changing %s: the footprint still says the same", c.name)
		}
		if !fp.Restore() || len(w.M) != 2 || w.M["a"] != 1 || w.M["b"] != 2 {
			t.Fatalf("changing %s: restored map %v, want map[a:1 b:2]", c.name, w.M)
		}
		if reflect.ValueOf(w.M).UnsafePointer() != reflect.ValueOf(m).UnsafePointer() {
			t.Fatalf("changing %s: restore put another map in the value, not the one it held", c.name)
		}
	}
}

// Keys that are == yet encode differently (a float's 0 and -0, and interfaces, which may hold
// floats) cannot be looked up to tell a map is unchanged: a value with such a map never says the
// same, and is encoded again.
func TestFootprintFloatKeys(t *testing.T) {
	type floatKeys struct{ M map[float64]int }
	type anyKeys struct{ M map[any]int }
	type structKeys struct {
		M map[struct{ A [1]float32 }]int
	}
	zero := math.Copysign(0, -1)
	for _, c := range []struct {
		name string
		v    any
	}{
		{"float64", &floatKeys{M: map[float64]int{0: 1}}},
		{"any", &anyKeys{M: map[any]int{0.0: 1}}},
		{"struct of floats", &structKeys{M: map[struct{ A [1]float32 }]int{{}: 1}}},
	} {
		var enc canon.Encoder
		b, _, fps := capture(t, &enc, root("m", c.v))
		if fps[0] != nil {
			t.Errorf("%s keys: a capture gave a footprint that Same could answer", c.name)
		}
		var dec canon.Decoder
		if err := dec.DecodeValue(b[0], reflect.ValueOf(c.v)); err != nil {
			t.Fatal(err)
		}
		var fp canon.Footprint
		if !dec.Footprint(&fp) || fp.Same() {
			t.Errorf("%s keys: a decoded value's footprint says the same, or there is none", c.name)
		}
	}
	// Why: -0 finds the entry of 0, but the two encode differently; and a restore must put 0 back.
	f := &floatKeys{M: map[float64]int{0: 1}}
	before := encode(t, f)
	var dec canon.Decoder
	if err := dec.DecodeValue(before, reflect.ValueOf(f)); err != nil {
		t.Fatal(err)
	}
	var fp canon.Footprint
	if !dec.Footprint(&fp) {
		t.Fatal("no footprint")
	}
	delete(f.M, 0)
	f.M[zero] = 1
	if bytes.Equal(encode(t, f), before) {
		t.Error("map keys 0 and -0 encode the same: the test above proves nothing")
	}
	if !fp.Restore() || !bytes.Equal(encode(t, f), before) {
		t.Error("restore left the key -0 where the value had 0")
	}
}

// An unchanged component is not encoded again, but its memory still takes part in the sharing
// checks: another component pointing into it is refused as before.
func TestUnchangedComponent(t *testing.T) {
	type env struct{ Slots []int }
	type proc struct{ P *int }
	e, p := &env{Slots: []int{1, 2}}, &proc{}
	var enc canon.Encoder
	first, _, fps := capture(t, &enc, root("env", e), root("proc", p))
	if fps[0] == nil {
		t.Fatal("env has no footprint")
	}
	emitted := map[int]bool{}
	r := root("env", e)
	r.Unchanged = fps[0]
	err := enc.EncodeComponents([]canon.Root{r, root("proc", p)}, func(i int, b []byte) {
		emitted[i] = true
		if i == 1 && string(b) != string(first[1]) {
			t.Errorf("proc encodes differently next to an unchanged env")
		}
	}, nil)
	if err != nil || emitted[0] || !emitted[1] {
		t.Fatalf("err %v, emitted %v: want only proc encoded", err, emitted)
	}
	p.P = &e.Slots[1] // proc now points into env's memory
	err = enc.EncodeComponents([]canon.Root{r, root("proc", p)}, func(int, []byte) {}, nil)
	if err == nil || !strings.Contains(err.Error(), "env.Slots") {
		t.Fatalf("sharing with an unchanged component: err %v, want one naming env.Slots", err)
	}
}

type pointsAt struct{ P *int }

// Footprints found apart are remembered, but two that cover one object are not apart, even when
// one of them was recorded again in place after the pair was found apart; a capture of such
// Unchanged roots says where they share.
func TestUnchangedRootsStillShareNothing(t *testing.T) {
	var enc canon.Encoder
	x, y := new(int), new(int)
	a, b := &pointsAt{P: x}, &pointsAt{P: y}
	_, _, fa := capture(t, &enc, root("a", a))
	_, _, fb := capture(t, &enc, root("b", b))
	if fa[0] == nil || fb[0] == nil {
		t.Fatal("no footprints")
	}
	emitted := 0
	both := func() error {
		ra, rb := root("a", a), root("b", b)
		ra.Unchanged, rb.Unchanged = fa[0], fb[0]
		return enc.EncodeComponents([]canon.Root{ra, rb}, func(int, []byte) { emitted++ }, nil)
	}
	if err := both(); err != nil || emitted != 0 {
		t.Fatalf("apart: %v, %d emitted; want no error, none emitted", err, emitted)
	}
	if !enc.Apart([]*canon.Footprint{fa[0], fb[0]}) {
		t.Fatal("Apart: false for footprints apart")
	}
	if !enc.Apart([]*canon.Footprint{fa[0], fb[0]}) {
		t.Fatal("Apart: false for footprints apart, asked again")
	}
	b.P = x
	// b's footprint recorded again in the same Footprint, b alone: nothing to share with.
	if err := enc.EncodeComponents([]canon.Root{root("b", b)}, func(int, []byte) { enc.Footprint(fb[0]) }, nil); err != nil {
		t.Fatal(err)
	}
	if enc.Apart([]*canon.Footprint{fa[0], fb[0]}) {
		t.Error("Apart: true for footprints of one object, the second recorded again in place")
	}
	if enc.Apart([]*canon.Footprint{fa[0], nil}) {
		t.Error("Apart: true with a component that has no footprint")
	}
	err := both()
	if err == nil || !strings.Contains(err.Error(), "cannot share objects") {
		t.Fatalf("both pointing at one int: %v; want an error that they cannot share objects", err)
	}
}

type twoSlices struct{ A, B []int }

// A component is first encoded in plain mode and emitted; only the sharing check after every
// component finds two of its slices on one array, and it is encoded again in array mode. A
// footprint recorded when it was emitted in plain mode would stand for the plain bytes (those of
// a value whose slices do not share) while the memory shares: it is cleared.
func TestFootprintOfSharingFoundAfterEmit(t *testing.T) {
	a := []int{1}
	h := &twoSlices{A: a, B: a}
	var enc canon.Encoder
	emits := 0
	fp := new(canon.Footprint)
	err := enc.EncodeComponents([]canon.Root{root("h", h)}, func(int, []byte) {
		emits++
		enc.Footprint(fp)
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if emits != 2 {
		t.Fatalf("%d emits; want 2 (plain mode, then array mode)", emits)
	}
	if fp.Same() || fp.Restore() {
		t.Error("the footprint recorded in plain mode still stands for the value")
	}
	// A component that shares nothing beside it keeps its footprint.
	other := &twoSlices{A: []int{1}, B: []int{1}}
	fps := make([]*canon.Footprint, 2)
	err = enc.EncodeComponents([]canon.Root{root("h", h), root("other", other)}, func(i int, _ []byte) {
		if fps[i] == nil {
			fps[i] = new(canon.Footprint)
		}
		enc.Footprint(fps[i])
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fps[0].Same() || !fps[1].Same() {
		t.Errorf("Same: %v for the sharing component, %v for the other; want false, true", fps[0].Same(), fps[1].Same())
	}
}
