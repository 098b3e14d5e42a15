package canon_test

//lint:file-ignore U1000 the test types' unexported fields are read by canon through reflection, never by name

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// fuzzState is the fixed type FuzzDecode decodes into.
type fuzzState struct {
	a      int
	b      uint8
	s      string
	f      float64
	c      complex64
	ok     bool
	bs     []byte
	arr    [3]int16
	barr   [2]byte
	p      *fuzzState
	m      map[string]*fuzzState
	mi     map[int32]goldenRoute
	ifs    []any
	sh     shape
	set    []uint16 `cmc:"set"`
	nested [][]string
	zs     []struct{}
	mu     sync.Mutex
	skip   int `cmc:"-"`
}

func fuzzSeeds(t testing.TB) [][]byte {
	self := &fuzzState{a: -1, s: "x", bs: []byte{1, 200}, set: []uint16{5, 1}}
	self.p = self
	full := &fuzzState{
		a: 1 << 40, b: 7, s: "hello", f: 2.5, c: 1i, ok: true,
		bs: []byte{0, 255}, arr: [3]int16{1, -1, 300}, barr: [2]byte{9, 8},
		p:      &fuzzState{s: "child"},
		m:      map[string]*fuzzState{"a": self, "b": nil, "c": {a: 3}},
		mi:     map[int32]goldenRoute{-1: {hops: 1, next: "n"}},
		ifs:    []any{1, "s", 2.5, &point{1, 2}, point{3, 4}, []int{1}, map[string]int{"k": 1}, nil, square{2}, &circle{1}},
		sh:     &circle{2},
		nested: [][]string{{"a"}, nil, {}},
		zs:     make([]struct{}, 4),
	}
	return [][]byte{encode(t, &fuzzState{}), encode(t, self), encode(t, full)}
}

func FuzzDecode(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc

		var s fuzzState
		err := canon.Decode(data, &s) // must not panic

		runtime.ReadMemStats(&ms)
		if alloc := ms.TotalAlloc - before; alloc > 1<<20+uint64(len(data))*1024 {
			t.Fatalf("decoding %d bytes allocated %d bytes", len(data), alloc)
		}
		if err != nil {
			return
		}
		// Whatever Decode accepts is capturable state, and canonical after one more round.
		b, err := new(canon.Encoder).Encode(nil, &s)
		if err != nil {
			t.Fatalf("decoded state cannot be encoded: %v", err)
		}
		var s2 fuzzState
		if err := canon.Decode(b, &s2); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if b2 := encode(t, &s2); !bytes.Equal(b, b2) {
			t.Fatalf("encode(decode(encode(decode(x)))) differs from encode(decode(x))")
		}
	})
}

// Truncated and corrupted encodings fail with an error, never a panic.
func TestDecodeCorrupt(t *testing.T) {
	for _, b := range fuzzSeeds(t) {
		for i := range len(b) {
			var s fuzzState
			if err := canon.Decode(b[:i], &s); err == nil {
				t.Errorf("decoding %d of %d bytes succeeded", i, len(b))
			}
			for _, x := range []byte{0, 1, 0x7f, 0x80, 0xff} {
				c := bytes.Clone(b)
				c[i] = x
				_ = canon.Decode(c, &s)
			}
		}
		var s fuzzState
		if err := canon.Decode(append(bytes.Clone(b), 0), &s); err == nil {
			t.Error("trailing bytes were accepted")
		}
	}
}

func TestDecodeBadRoot(t *testing.T) {
	b := encode(t, &fuzzState{})
	for _, root := range []any{nil, fuzzState{}, (*fuzzState)(nil)} {
		if err := canon.Decode(b, root); err == nil {
			t.Errorf("Decode into %T succeeded", root)
		}
	}
}

type anyHolder struct{ x any }

type shapeHolder struct{ x shape }

type stringHolder struct{ s string }

// Regressions found by FuzzDecode and by reading the decoder.
func TestDecodeRegressions(t *testing.T) {
	// A registered type that does not implement the field's interface.
	var sh shapeHolder
	if err := canon.Decode(encode(t, &anyHolder{[]int{1}}), &sh); err == nil {
		t.Error("decoding a []int into a shape succeeded")
	}
	// A length one past the end (byte 0 is the encoding's mode).
	b := encode(t, &stringHolder{"ab"})
	b[1]++
	var s stringHolder
	if err := canon.Decode(b, &s); err == nil {
		t.Error("a string longer than the input decoded")
	}
	// A slice of zero-size elements at the very end of the input.
	z := &zeroSize{d: make([]struct{}, 1000)}
	var got zeroSize
	if err := canon.Decode(encode(t, z), &got); err != nil || len(got.d) != 1000 {
		t.Errorf("decode []struct{} of 1000: %v, len %d", err, len(got.d))
	}
	// Bytes at or above 0x80 in a []byte.
	var bs sensVal
	if err := canon.Decode(encode(t, &sensVal{z: []int16{-1}}), &bs); err != nil {
		t.Fatal(err)
	}
	type byteHolder struct{ b []byte }
	var bh byteHolder
	if err := canon.Decode(encode(t, &byteHolder{[]byte{0x80, 0xff, 0}}), &bh); err != nil || !bytes.Equal(bh.b, []byte{0x80, 0xff, 0}) {
		t.Errorf("decode []byte{0x80, 0xff, 0}: %v, %x", err, bh.b)
	}
}
