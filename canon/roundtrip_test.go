package canon_test

//lint:file-ignore U1000 the test types' unexported fields are read by canon through reflection, never by name

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/canon"
)

type point struct {
	X int
	y int
}

type base struct {
	id    uint16
	Label string
}

type extra struct{ note string }

type list struct {
	val  int
	next *list
}

type shape interface{ area() float64 }

type square struct{ side float64 }

func (s square) area() float64 { return s.side * s.side }

type circle struct{ r float64 }

func (c *circle) area() float64 { return math.Pi * c.r * c.r }

// rich holds one of everything canon captures.
type rich struct {
	base   // embedded struct
	*extra // embedded pointer

	b    bool
	i    int
	i8   int8
	i16  int16
	i32  int32
	i64  int64
	u    uint
	u8   uint8
	u16  uint16
	u32  uint32
	u64  uint64
	f32  float32
	f64  float64
	c64  complex64
	c128 complex128
	s    string
	uni  string

	bytes   []byte
	arr     [3]point
	barr    [4]byte
	pp      **int
	p       *point
	pNil    *point
	m       map[string]point
	mp      map[int]*point
	mKeys   map[point][]string
	ifs     []any
	shapes  []shape
	err     error
	nested  [][]int16
	list    *list
	mu      sync.Mutex
	rw      sync.RWMutex
	muPtr   *sync.Mutex
	nilS    []int
	emptyS  []int
	nilM    map[string]int
	emptyM  map[string]int
	set     []uint16 `cmc:"set"`
	ignored chan int `cmc:"-"`
}

func newRich() *rich {
	n := 42
	pn := &n
	p := &point{X: 1, y: -2}
	r := &rich{
		base:  base{id: 7, Label: "base"},
		extra: &extra{note: "extra"},
		b:     true,
		i:     -1 << 40, i8: -128, i16: 300, i32: -70000, i64: math.MinInt64,
		u: 1 << 50, u8: 255, u16: 65535, u32: 1 << 31, u64: math.MaxUint64,
		f32: 1.5, f64: -2.25e300,
		c64: complex(1, -1), c128: complex(math.Inf(1), 0.5),
		s:     "hello",
		uni:   "héllo, 世界\x00",
		bytes: []byte{0, 1, 127, 128, 200, 255},
		arr:   [3]point{{1, 2}, {3, 4}, {5, 6}},
		barr:  [4]byte{9, 0, 255, 128},
		pp:    &pn,
		p:     p,
		m:     map[string]point{"a": {1, 1}, "b": {2, 2}, "": {0, 0}},
		mp:    map[int]*point{1: p, 2: {X: 9}, 3: nil},
		mKeys: map[point][]string{{1, 2}: {"x"}, {2, 1}: nil, {0, 0}: {}},
		ifs: []any{int(1), int64(1), "s", 2.5, p, point{3, 4}, nil, []int{1},
			map[string]int{"k": 1}, &list{val: 1}, [2]bool{true, false}},
		shapes: []shape{square{2}, &circle{1}, nil},
		err:    errors.New("boom"),
		nested: [][]int16{{1, 2}, nil, {}},
		list:   &list{val: 1, next: &list{val: 2, next: &list{val: 3}}},
		muPtr:  &sync.Mutex{},
		emptyS: []int{},
		emptyM: map[string]int{},
		set:    []uint16{1, 2, 2, 300}, // sorted by encoding, so Decode gives it back as is
	}
	r.list.next.next.next = r.list // a cycle
	return r
}

// everything compares unexported fields too.
var everything = cmp.Exporter(func(reflect.Type) bool { return true })

func TestRoundTrip(t *testing.T) {
	x := newRich()
	b := encode(t, x)

	var y rich
	if err := canon.Decode(b, &y); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if b2 := encode(t, &y); !bytes.Equal(b, b2) {
		t.Fatalf("decode then encode changed the bytes:\n first %x\nsecond %x", b, b2)
	}
	if diff := cmp.Diff(x, &y, everything); diff != "" {
		t.Fatalf("decoded value differs (-want +got):\n%s", diff)
	}

	// Aliasing survives: the map entry and the field are one object, and the cycle is closed.
	if y.mp[1] != y.p || y.ifs[4].(*point) != y.p {
		t.Errorf("aliases of p were not restored as one object")
	}
	if y.list.next.next.next != y.list {
		t.Errorf("the cycle was not restored")
	}
	if y.nilS != nil || y.emptyS == nil || y.nilM != nil || y.emptyM == nil {
		t.Errorf("nil and empty were confused: nilS=%#v emptyS=%#v nilM=%#v emptyM=%#v", y.nilS, y.emptyS, y.nilM, y.emptyM)
	}
	if _, ok := y.ifs[0].(int); !ok {
		t.Errorf("ifs[0] is %T, want int", y.ifs[0])
	}
	if _, ok := y.ifs[1].(int64); !ok {
		t.Errorf("ifs[1] is %T, want int64", y.ifs[1])
	}
}

// Decode rebuilds every captured field of the root, whatever it held before.
func TestRoundTripOverwrites(t *testing.T) {
	x := newRich()
	b := encode(t, x)
	y := newRich()
	y.s, y.m, y.nilS, y.list = "other", map[string]point{"z": {}}, []int{1}, nil
	if err := canon.Decode(b, y); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if diff := cmp.Diff(x, y, everything); diff != "" {
		t.Fatalf("decoded value differs (-want +got):\n%s", diff)
	}
}

// Roots need not be structs.
func TestRoundTripRoots(t *testing.T) {
	m := map[string][]int{"a": {1}, "b": nil}
	s := []*point{{1, 2}, nil}
	s = append(s, s[0])
	f := math.Copysign(0, -1)
	arr := [2]string{"x", "y"}
	var iface any = &point{5, 6}
	for _, root := range []any{&m, &s, &f, &arr, &iface} {
		b := encode(t, root)
		y := reflect.New(reflect.TypeOf(root).Elem())
		if err := canon.DecodeValue(b, y); err != nil {
			t.Fatalf("decode %T: %v", root, err)
		}
		if b2 := encode(t, y.Interface()); !bytes.Equal(b, b2) {
			t.Errorf("%T: decode then encode changed the bytes", root)
		}
		if diff := cmp.Diff(root, y.Interface(), everything); diff != "" {
			t.Errorf("%T: decoded value differs (-want +got):\n%s", root, diff)
		}
	}
}

func TestEncodeAppends(t *testing.T) {
	x := newRich()
	b := encode(t, x)
	var enc canon.Encoder
	out, err := enc.Encode([]byte("prefix"), x)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, append([]byte("prefix"), b...)) {
		t.Fatalf("Encode did not append to dst")
	}
	// The encoder is reusable and gives the same bytes every time.
	for range 3 {
		again, err := enc.Encode(nil, x)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("reused encoder gave different bytes (err %v)", err)
		}
	}
}

func TestHashMixesVersion(t *testing.T) {
	b := encode(t, newRich())
	if canon.Hash(b) == canon.Hash(append([]byte{0}, b...)) {
		t.Fatal("Hash ignores content")
	}
	if canon.Hash(b) != canon.Hash(encode(t, newRich())) {
		t.Fatal("Hash is not deterministic")
	}
}
