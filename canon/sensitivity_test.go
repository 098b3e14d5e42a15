package canon_test

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/cmc-go/cmc/canon"
)

type sensKey struct {
	a int8
	b string
}

type sensVal struct {
	x uint32
	y float64
	z []int16
}

type sensEmbedded struct{ e int }

// sens has every kind of leaf canon captures, each set to a non-zero value.
type sens struct {
	sensEmbedded
	b      bool
	i      int
	i8     int8
	i16    int16
	i32    int32
	i64    int64
	u      uint
	u8     uint8
	u16    uint16
	u32    uint32
	u64    uint64
	f32    float32
	f64    float64
	c64    complex64
	c128   complex128
	s      string
	bs     []byte
	arr    [2]int16
	barr   [3]byte
	st     sensVal
	p      *sensVal
	pp     **int
	m      map[string]int
	mk     map[sensKey]sensVal
	mp     map[uint8]*sensVal
	ifc    any
	ifs    []any
	set    []int32 `cmc:"set"`
	nested [][]string
	list   *list
	skip   int `cmc:"-"`
}

func newSens() *sens {
	n := 5
	pn := &n
	s := &sens{
		sensEmbedded: sensEmbedded{e: 1},
		b:            true,
		i:            -3, i8: 4, i16: -5, i32: 6, i64: -7,
		u: 8, u8: 9, u16: 10, u32: 11, u64: 12,
		f32: 1.25, f64: -1e300,
		c64: complex(1, 2), c128: complex(-3, 4),
		s:      "str",
		bs:     []byte{1, 200},
		arr:    [2]int16{1, 2},
		barr:   [3]byte{1, 2, 3},
		st:     sensVal{x: 1, y: 2, z: []int16{3}},
		p:      &sensVal{x: 4, y: 5, z: []int16{6, 7}},
		pp:     &pn,
		m:      map[string]int{"k1": 1, "k2": 2},
		mk:     map[sensKey]sensVal{{1, "a"}: {x: 1, y: 1, z: []int16{1}}},
		mp:     map[uint8]*sensVal{1: {x: 2, y: 3, z: []int16{4}}},
		ifc:    int64(7),
		ifs:    []any{int(1), "x", &sensVal{x: 1, y: 2, z: []int16{3}}, sensVal{x: 4, y: 5, z: []int16{6}}, [2]uint8{1, 2}, float32(1.5)},
		set:    []int32{3, 1, 2},
		nested: [][]string{{"a", "b"}, {"c"}},
		list:   &list{val: 1, next: &list{val: 2}},
		skip:   9,
	}
	s.list.next.next = s.list
	return s
}

// mutator changes the target-th scalar leaf it meets, walking in a fixed order.
type mutator struct {
	target int
	n      int
	path   string
	seen   map[uintptr]bool
}

// walk visits v (settable) and reports whether it changed the target leaf.
func (m *mutator) walk(v reflect.Value, path string) bool {
	leaf := func(change func()) bool {
		m.n++
		if m.n-1 != m.target {
			return false
		}
		change()
		m.path = path
		return true
	}
	switch v.Kind() {
	case reflect.Bool:
		return leaf(func() { v.SetBool(!v.Bool()) })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return leaf(func() { v.SetInt(v.Int() + 1) })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return leaf(func() { v.SetUint(v.Uint() + 1) })
	case reflect.Float32:
		return leaf(func() { v.SetFloat(float64(math.Nextafter32(float32(v.Float()), float32(math.Inf(1))))) })
	case reflect.Float64:
		return leaf(func() { v.SetFloat(math.Nextafter(v.Float(), math.Inf(1))) })
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		next := func(f float64) float64 { return math.Nextafter(f, math.Inf(1)) }
		if v.Kind() == reflect.Complex64 {
			next = func(f float64) float64 { return float64(math.Nextafter32(float32(f), float32(math.Inf(1)))) }
		}
		if leaf(func() { v.SetComplex(complex(next(real(c)), imag(c))) }) {
			return true
		}
		path += ".imag"
		return leaf(func() { v.SetComplex(complex(real(c), next(imag(c)))) })
	case reflect.String:
		return leaf(func() { v.SetString(v.String() + "x") })
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).Tag.Get("cmc") == "-" {
				continue
			}
			if m.walk(writable(v.Field(i)), path+"."+v.Type().Field(i).Name) {
				return true
			}
		}
	case reflect.Array, reflect.Slice:
		for i := range v.Len() {
			if m.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i)) {
				return true
			}
		}
	case reflect.Pointer:
		if v.IsNil() || m.seen[v.Pointer()] {
			return false
		}
		m.seen[v.Pointer()] = true
		return m.walk(v.Elem(), "(*"+path+")")
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			k2 := reflect.New(k.Type()).Elem()
			k2.Set(k)
			val := reflect.New(v.Type().Elem()).Elem()
			val.Set(v.MapIndex(k))
			p := fmt.Sprintf("%s[%v]", path, k)
			if m.walk(k2, p+"(key)") {
				v.SetMapIndex(k, reflect.Value{})
				v.SetMapIndex(k2, val)
				return true
			}
			if m.walk(val, p) {
				v.SetMapIndex(k, val)
				return true
			}
		}
	case reflect.Interface:
		if v.IsNil() {
			return false
		}
		c := reflect.New(v.Elem().Type()).Elem()
		c.Set(v.Elem())
		if m.walk(c, path+".("+c.Type().String()+")") {
			v.Set(c)
			return true
		}
	}
	return false
}

// writable lifts the read-only flag of an unexported field: the test owns the value.
func writable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// Changing any one leaf changes the encoding: no field is skipped by accident.
func TestEveryLeafCounts(t *testing.T) {
	base := encode(t, newSens())
	covered := map[string]bool{}
	var paths []string
	for target := 0; ; target++ {
		s := newSens()
		m := &mutator{target: target, seen: map[uintptr]bool{}}
		if !m.walk(reflect.ValueOf(s).Elem(), "s") {
			break
		}
		paths = append(paths, m.path)
		if bytes.Equal(encode(t, s), base) {
			t.Errorf("changing %s does not change the encoding", m.path)
		}
		top := strings.TrimPrefix(strings.TrimLeft(m.path, "(*"), "s.")
		if i := strings.IndexAny(top, ".[)"); i >= 0 {
			top = top[:i]
		}
		covered[top] = true
	}
	t.Logf("%d leaves: %s", len(paths), strings.Join(paths, " "))

	// The walk itself must not skip a field, or the test proves nothing.
	st := reflect.TypeFor[sens]()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Tag.Get("cmc") != "-" && !covered[f.Name] {
			t.Errorf("no leaf of field %s was changed", f.Name)
		}
	}
	if covered["skip"] {
		t.Errorf("the walk changed the cmc:\"-\" field")
	}
}

// A footprint of the value, captured or decoded, no longer says the same once any one leaf
// changed, a map's key or value included.
func TestFootprintSeesEveryLeaf(t *testing.T) {
	for target := 0; ; target++ {
		s := newSens()
		var enc canon.Encoder
		var fps [2]canon.Footprint
		var captured bool
		err := enc.EncodeComponents([]canon.Root{{Name: "s", V: reflect.ValueOf(s)}}, func(_ int, b []byte) {
			captured = enc.Footprint(&fps[0])
		}, nil)
		if err != nil || !captured {
			t.Fatalf("capture: %v; footprint %v", err, captured)
		}
		d := newSens()
		var dec canon.Decoder
		if err := dec.DecodeValue(encode(t, s), reflect.ValueOf(d)); err != nil || !dec.Footprint(&fps[1]) {
			t.Fatalf("decode: %v, or no footprint", err)
		}
		for i, v := range []*sens{s, d} {
			if !fps[i].Same() {
				t.Fatalf("footprint %d: not the same before any change", i)
			}
			m := &mutator{target: target, seen: map[uintptr]bool{}}
			if !m.walk(reflect.ValueOf(v).Elem(), "s") {
				if target == 0 {
					t.Fatal("no leaf to change")
				}
				return
			}
			if fps[i].Same() {
				t.Errorf("footprint %d still says the same after changing %s", i, m.path)
			}
		}
	}
}

type holder struct{ v any }

type myInt int

type twoStrings struct{ a, b string }

type setHolder struct {
	s []int32 `cmc:"set"`
}

func negZero() float64 { return math.Copysign(0, -1) }

// Pairs of values that must encode the same, or differently, as the package documentation says.
func TestDistinctions(t *testing.T) {
	var nilPoint *point
	negNaN := math.Float64frombits(math.Float64bits(math.NaN()) | 1<<63)
	payloadNaN := math.Float64frombits(0x7ff0000000000001) // a signalling NaN
	tests := []struct {
		name string
		a, b any
		same bool
	}{
		{"int vs int64 with one value", &holder{int(1)}, &holder{int64(1)}, false},
		{"int vs named int", &holder{int(1)}, &holder{myInt(1)}, false},
		{"int8 vs uint8", &holder{int8(1)}, &holder{uint8(1)}, false},
		{"float32 vs float64", &holder{float32(1)}, &holder{float64(1)}, false},
		{"nil slice vs empty slice", &holder{[]int(nil)}, &holder{[]int{}}, false},
		{"nil slice field vs empty", &sensVal{z: nil}, &sensVal{z: []int16{}}, false},
		{"nil map vs empty map", &map[string]int{}, new(map[string]int), false},
		{"nil interface vs typed nil pointer", &holder{nil}, &holder{nilPoint}, false},
		{"typed nil vs zero pointee", &holder{nilPoint}, &holder{&point{}}, false},
		{"NaN vs NaN", &holder{math.NaN()}, &holder{math.NaN()}, true},
		{"NaN vs negative NaN", &holder{math.NaN()}, &holder{negNaN}, true},
		{"NaN vs payload NaN", &holder{math.NaN()}, &holder{payloadNaN}, true},
		{"float32 NaNs", &holder{float32(math.NaN())}, &holder{float32(payloadNaN)}, true},
		{"complex NaNs", &holder{complex(math.NaN(), 1)}, &holder{complex(payloadNaN, 1)}, true},
		{"NaN vs Inf", &holder{math.NaN()}, &holder{math.Inf(1)}, false},
		{"-0 vs +0", &holder{negZero()}, &holder{0.0}, false},
		{"float32 -0 vs +0", &holder{float32(negZero())}, &holder{float32(0)}, false},
		{"complex -0 vs +0", &holder{complex(0, negZero())}, &holder{complex(0, 0)}, false},
		{"string boundaries", &twoStrings{"ab", "c"}, &twoStrings{"a", "bc"}, false},
		{"set order", &setHolder{[]int32{3, 1, 2}}, &setHolder{[]int32{1, 2, 3}}, true},
		{"set multiplicity", &setHolder{[]int32{1, 1, 2}}, &setHolder{[]int32{1, 2, 2}}, false},
		{"nil set vs empty set", &setHolder{nil}, &setHolder{[]int32{}}, false},
		{"map values swapped", &map[int]string{1: "a", 2: "b"}, &map[int]string{1: "b", 2: "a"}, false},
		{"map key vs value", &map[string]string{"a": "b"}, &map[string]string{"b": "a"}, false},
		{"array vs slice in interface", &holder{[1]int{1}}, &holder{[]int{1}}, false},
		{"pointer vs value in interface", &holder{&point{1, 2}}, &holder{point{1, 2}}, false},
		{"zero-size pointers", &[2]*struct{}{{}, {}}, &[2]*struct{}{new(struct{}), new(struct{})}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := encode(t, tt.a), encode(t, tt.b)
			if same := bytes.Equal(a, b); same != tt.same {
				t.Errorf("same encoding = %v, want %v:\n%x\n%x", same, tt.same, a, b)
			}
		})
	}
}
