package canon_test

//lint:file-ignore U1000 the test types' unexported fields are read by canon through reflection, never by name

import (
	"bytes"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

type pair struct{ a, b *point }

type ring struct {
	val  int
	next *ring
}

// newRing builds a cycle of n nodes.
func newRing(n int) *ring {
	first := &ring{val: 1}
	r := first
	for range n - 1 {
		r.next = &ring{val: 1}
		r = r.next
	}
	r.next = first
	return first
}

func TestAliasing(t *testing.T) {
	p, q := &point{1, 2}, &point{1, 2}
	shared, apart := encode(t, &pair{p, p}), encode(t, &pair{p, q})
	if bytes.Equal(shared, apart) {
		t.Fatal("{p, p} and {p, q} with *p == *q encode the same")
	}
	var got pair
	if err := canon.Decode(shared, &got); err != nil {
		t.Fatal(err)
	}
	if got.a != got.b {
		t.Error("decoding {p, p} gave two objects")
	}
	if err := canon.Decode(apart, &got); err != nil {
		t.Fatal(err)
	}
	if got.a == got.b {
		t.Error("decoding {p, q} gave one object")
	}
}

type mapPair struct{ a, b map[string]int }

type viaInterface struct {
	p *point
	i any
}

func TestAliasingMapsAndInterfaces(t *testing.T) {
	m := map[string]int{"x": 1}
	if bytes.Equal(encode(t, &mapPair{m, m}), encode(t, &mapPair{m, map[string]int{"x": 1}})) {
		t.Error("one map twice encodes like two equal maps")
	}
	var got mapPair
	if err := canon.Decode(encode(t, &mapPair{m, m}), &got); err != nil {
		t.Fatal(err)
	}
	got.a["y"] = 2
	if got.b["y"] != 2 {
		t.Error("decoding one map twice gave two maps")
	}

	p := &point{3, 4}
	if bytes.Equal(encode(t, &viaInterface{p, p}), encode(t, &viaInterface{p, &point{3, 4}})) {
		t.Error("a pointer and the same pointer in an interface encode like two objects")
	}
}

func TestCycles(t *testing.T) {
	// Rings of different lengths with equal values are different heaps.
	seen := map[string]int{}
	for n := 1; n <= 4; n++ {
		b := encode(t, newRing(n))
		if m, ok := seen[string(b)]; ok {
			t.Errorf("rings of %d and %d nodes encode the same", m, n)
		}
		seen[string(b)] = n

		var got ring
		if err := canon.Decode(b, &got); err != nil {
			t.Fatal(err)
		}
		r := &got
		for range n {
			r = r.next
		}
		if r != &got {
			t.Errorf("ring of %d: decoding did not close the cycle at the root", n)
		}
	}

	// A self-loop differs from a node pointing to an equal copy of itself.
	self := &ring{val: 1}
	self.next = self
	other := &ring{val: 1, next: &ring{val: 1}}
	other.next.next = other.next
	if bytes.Equal(encode(t, self), encode(t, other)) {
		t.Error("a self-loop encodes like a pointer to another self-loop")
	}
}

type ptrPtr struct {
	a, b **int
	c    *int
}

func TestPointerToPointer(t *testing.T) {
	x, y := 1, 1
	px, py := &x, &y
	px2 := px // a second pointer to x
	shared := encode(t, &ptrPtr{a: &px, b: &px, c: px})
	outer := encode(t, &ptrPtr{a: &px, b: &px2, c: px})
	inner := encode(t, &ptrPtr{a: &px, b: &py, c: px})
	if bytes.Equal(shared, outer) || bytes.Equal(outer, inner) || bytes.Equal(shared, inner) {
		t.Error("aliasing at the outer or inner level of **int is lost")
	}
	var got ptrPtr
	if err := canon.Decode(shared, &got); err != nil {
		t.Fatal(err)
	}
	if got.a != got.b || *got.a != got.c {
		t.Error("**int aliasing was not restored")
	}
	if err := canon.Decode(outer, &got); err != nil {
		t.Fatal(err)
	}
	if got.a == got.b || *got.a != *got.b || *got.a != got.c {
		t.Error("**int: distinct outer pointers to one inner pointer were not restored")
	}
}

type zeroSize struct {
	a, b *struct{}
	c    *[0]int
	d    []struct{}
	e    struct{}
}

func TestZeroSize(t *testing.T) {
	z := &struct{}{}
	one := encode(t, &zeroSize{a: z, b: z, c: &[0]int{}, d: make([]struct{}, 3)})
	two := encode(t, &zeroSize{a: &struct{}{}, b: new(struct{}), c: new([0]int), d: []struct{}{{}, {}, {}}})
	if !bytes.Equal(one, two) {
		t.Error("pointers to zero-size values alias, but Go does not say whether they are equal")
	}
	if bytes.Equal(one, encode(t, &zeroSize{a: z, b: z, c: &[0]int{}, d: make([]struct{}, 2)})) {
		t.Error("the length of a slice of zero-size elements is ignored")
	}
	if bytes.Equal(one, encode(t, &zeroSize{a: z, b: nil, c: &[0]int{}, d: make([]struct{}, 3)})) {
		t.Error("a nil pointer to a zero-size type encodes like a non-nil one")
	}
	var got zeroSize
	if err := canon.Decode(one, &got); err != nil {
		t.Fatal(err)
	}
	if got.a == nil || got.b == nil || got.c == nil || len(got.d) != 3 {
		t.Errorf("decoded %+v", got)
	}
}

type table map[string]int

type pointRef *point

type namedAliases struct {
	t table
	m map[string]int
	n pointRef
	p *point
}

// A named map or pointer type and its unnamed twin refer to one object: that is aliasing, not an
// interior pointer.
func TestNamedTypesAlias(t *testing.T) {
	m := table{"a": 1}
	p := &point{1, 2}
	shared := encode(t, &namedAliases{t: m, m: m, n: p, p: p})
	if bytes.Equal(shared, encode(t, &namedAliases{t: m, m: map[string]int{"a": 1}, n: p, p: &point{1, 2}})) {
		t.Fatal("aliasing through named types is lost")
	}
	var got namedAliases
	if err := canon.Decode(shared, &got); err != nil {
		t.Fatal(err)
	}
	got.t["b"] = 2
	if got.m["b"] != 2 || (*point)(got.n) != got.p {
		t.Errorf("decoded %+v: aliases were not restored", got)
	}
}
