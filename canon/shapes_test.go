package canon

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Random shapes: values of random types, built with reflect.StructOf and friends, and filled at
// random (aliases, cycles, spare capacity, shared backing arrays, NaNs, hidden fields, sets,
// rejected kinds). Every value is encoded twice: from its root pointer, where canon reads memory
// through its fast paths, and as a copy inside an interface, which is not addressable and so takes
// the reflect paths. The two must write the same bytes and fail alike. A fixed series of them is
// pinned in testdata/shapes.golden, so the bytes, AsDecoded and footprints cannot drift.

var updateShapes = flag.Bool("update-shapes", false, "rewrite testdata/shapes.golden")

// shapeSeed returns the seed of a randomised test and logs it: -shape-seed or $CANON_SEED, else
// the clock.
var shapeSeedFlag = flag.Uint64("shape-seed", 0, "seed of TestShapesFastMatchesReflect (0: $CANON_SEED, else the clock)")

func shapeSeed(t *testing.T) uint64 {
	seed := *shapeSeedFlag
	if s := os.Getenv("CANON_SEED"); seed == 0 && s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("CANON_SEED: %v", err)
		}
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -shape-seed=%d or CANON_SEED=%d)", seed, seed, seed)
	return seed
}

type shapeID uint8 // a named scalar

type shapeGen struct {
	r     *rand.Rand
	ptrs  map[reflect.Type][]reflect.Value // pointers made so far, by pointer type, to alias
	elems map[reflect.Type][]reflect.Value // addresses of slice elements, to point into
	slcs  map[reflect.Type][]reflect.Value // slices made so far, to share backing arrays
	types []reflect.Type                   // types made so far, to meet again
	bad   bool                             // may use rejected kinds
	// pointers made so far, in order, and whether interfaces may hold them, new pointers, nil
	// pointers and maps (pointer-shaped values: the interface's fast path)
	made      []reflect.Value
	ifacePtrs bool
}

func newShapeGen(seed uint64) *shapeGen {
	return &shapeGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

var scalarTypes = []reflect.Type{
	reflect.TypeFor[bool](), reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[int64](),
	reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint32](), reflect.TypeFor[uint64](),
	reflect.TypeFor[float32](), reflect.TypeFor[float64](), reflect.TypeFor[complex128](),
	reflect.TypeFor[string](), reflect.TypeFor[shapeID](),
}

var badTypes = []reflect.Type{
	reflect.TypeFor[chan int](), reflect.TypeFor[uintptr](), reflect.TypeFor[func()](),
}

// typ returns a random type; noRef: without pointers, maps or interfaces (a set's element).
func (g *shapeGen) typ(depth int, noRef bool) reflect.Type {
	k := g.r.IntN(12)
	if depth <= 0 {
		k = 0
	}
	if n := len(g.types); n > 0 && k > 0 && g.r.IntN(4) == 0 {
		if t := g.types[g.r.IntN(n)]; !noRef || !typeMayRef(t) {
			return t
		}
	}
	t := g.newType(k, depth, noRef)
	if k > 0 {
		g.types = append(g.types, t)
	}
	return t
}

func (g *shapeGen) newType(k, depth int, noRef bool) reflect.Type {
	switch {
	case k < 4:
		if g.bad && g.r.IntN(40) == 0 {
			return badTypes[g.r.IntN(len(badTypes))]
		}
		return scalarTypes[g.r.IntN(len(scalarTypes))]
	case k < 6:
		return reflect.SliceOf(g.typ(depth-1, noRef))
	case k == 6:
		return reflect.ArrayOf(g.r.IntN(4), g.typ(depth-1, noRef))
	case k < 9:
		return g.structType(depth, noRef)
	case noRef:
		return g.typ(depth-1, noRef)
	case k == 9:
		return reflect.PointerTo(g.typ(depth-1, false))
	case k == 10:
		keys := []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[int16](), reflect.TypeFor[[2]uint8]()}
		return reflect.MapOf(keys[g.r.IntN(len(keys))], g.typ(depth-1, false))
	}
	return reflect.TypeFor[any]()
}

func (g *shapeGen) structType(depth int, noRef bool) reflect.Type {
	var fields []reflect.StructField
	for i := range 1 + g.r.IntN(5) {
		f := reflect.StructField{Name: "F" + strconv.Itoa(i)}
		switch g.r.IntN(11) {
		case 8, 9, 10:
			if i > 0 { // the type of the field before: slices to share an array
				f.Type = fields[i-1].Type
				if fields[i-1].Tag == `cmc:"set"` {
					f.Tag = fields[i-1].Tag
				}
				break
			}
			fallthrough
		case 0:
			f.Type, f.Tag = g.typ(depth-1, noRef), `cmc:"-"`
		case 1:
			f.Type, f.Tag = reflect.SliceOf(g.typ(depth-1, true)), `cmc:"set"`
		default:
			f.Type = g.typ(depth-1, noRef)
		}
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
}

// fill gives v, settable, a random value.
func (g *shapeGen) fill(v reflect.Value, depth int, set bool) {
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(g.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int64:
		v.SetInt(int64(g.r.IntN(300)) - 150)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(g.r.IntN(400)))
	case reflect.Float32, reflect.Float64:
		fs := []float64{0, math.Copysign(0, -1), 1.5, -7, math.NaN(), math.Inf(1)}
		v.SetFloat(fs[g.r.IntN(len(fs))])
	case reflect.Complex128:
		v.SetComplex(complex(float64(g.r.IntN(3)), -1))
	case reflect.String:
		ss := []string{"", "a", "b", "route", strings.Repeat("x", 40)}
		v.SetString(ss[g.r.IntN(len(ss))])
	case reflect.Array:
		for i := range v.Len() {
			g.fill(v.Index(i), depth-1, set)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := t.Field(i)
			if f.Tag.Get("cmc") == "-" && g.r.IntN(2) == 0 {
				continue // hidden and zero
			}
			g.fill(v.Field(i), depth-1, f.Tag.Get("cmc") == "set")
		}
	case reflect.Slice:
		g.fillSlice(v, depth, set)
	case reflect.Pointer:
		switch old := g.ptrs[t]; {
		case g.r.IntN(4) == 0:
		case len(old) > 0 && g.r.IntN(3) == 0:
			v.Set(old[g.r.IntN(len(old))]) // an alias, or a cycle
		case len(g.elems[t]) > 0 && g.r.IntN(8) == 0:
			v.Set(g.elems[t][g.r.IntN(len(g.elems[t]))]) // into a backing array: refused
		default:
			p := reflect.New(t.Elem())
			g.ptrs[t] = append(g.ptrs[t], p)
			g.made = append(g.made, p)
			g.fill(p.Elem(), depth-1, false)
			v.Set(p)
		}
	case reflect.Map:
		if g.r.IntN(4) == 0 {
			return
		}
		m := reflect.MakeMap(t)
		for range g.r.IntN(4) {
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			g.fill(k, depth-1, false)
			g.fill(e, depth-1, false)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		if g.ifacePtrs && g.r.IntN(2) == 0 {
			n := g.r.IntN(9)
			ptrs := []any{&n, (*int)(nil), map[shapeID]int{1: n}, map[string]*int{"a": &n, "b": nil}, &struct{}{}}
			if len(g.made) > 0 && g.r.IntN(2) == 0 {
				v.Set(g.made[g.r.IntN(len(g.made))]) // an alias of a pointer in the value
			} else {
				v.Set(reflect.ValueOf(ptrs[g.r.IntN(len(ptrs))]))
			}
			return
		}
		vals := []any{nil, 3, "s", 2.5, []int{1, 2}, []int(nil), shapeID(4), [2]string{"a", "b"}}
		if x := vals[g.r.IntN(len(vals))]; x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case reflect.Chan:
		if g.r.IntN(2) == 0 {
			v.Set(reflect.MakeChan(t, 0))
		}
	case reflect.Func:
		if g.r.IntN(2) == 0 {
			n := g.r.IntN(9)
			v.Set(reflect.ValueOf(func() { _ = n }))
		}
	case reflect.Uintptr:
		v.SetUint(uint64(g.r.IntN(9)))
	}
}

func (g *shapeGen) fillSlice(v reflect.Value, depth int, set bool) {
	t := v.Type()
	old := g.slcs[t]
	switch {
	case g.r.IntN(5) == 0:
		return // nil
	case !set && len(old) > 0 && g.r.IntN(2) == 0:
		s := old[g.r.IntN(len(old))] // shares a backing array: array mode
		lo := g.r.IntN(s.Cap() + 1)
		hi := lo + g.r.IntN(s.Cap()-lo+1)
		v.Set(s.Slice3(lo, min(hi, lo+g.r.IntN(hi-lo+1)), hi))
		return
	}
	n := g.r.IntN(5)
	c := n + g.r.IntN(3)*g.r.IntN(2)
	s := reflect.MakeSlice(t, c, c)
	for i := range c {
		if i < n || g.r.IntN(4) == 0 { // spare capacity, now and then not zero
			g.fill(s.Index(i), depth-1, set)
		}
		if pt := reflect.PointerTo(t.Elem()); t.Elem().Size() > 0 {
			g.elems[pt] = append(g.elems[pt], s.Index(i).Addr())
		}
	}
	s = s.Slice(0, n)
	g.slcs[t] = append(g.slcs[t], s)
	v.Set(s)
}

// shape is one random value, and its root.
func (g *shapeGen) shape() reflect.Value {
	g.ptrs, g.made = map[reflect.Type][]reflect.Value{}, g.made[:0]
	g.elems = map[reflect.Type][]reflect.Value{}
	g.slcs = map[reflect.Type][]reflect.Value{}
	g.types = g.types[:0]
	root := reflect.New(g.structType(4, false))
	g.fill(root.Elem(), 5, false)
	return root
}

// shapeCapture is what an encoding of a root says.
type shapeCapture struct {
	b         []byte
	err       error
	asDecoded bool
	fp        bool
	same      bool // the footprint says the same right after the capture
	regions   int
	size      uintptr
}

func captureShape(enc *Encoder, root reflect.Value, name string) shapeCapture {
	var c shapeCapture
	c.err = enc.EncodeComponents([]Root{{Name: name, V: root}}, func(_ int, b []byte) {
		c.b = append([]byte(nil), b...)
		c.asDecoded = enc.AsDecoded()
		var f Footprint
		if c.fp = enc.Footprint(&f); c.fp {
			c.same = f.Same()
			c.regions = len(f.regions)
			for _, r := range f.regions {
				c.size += r.size
			}
		}
	}, nil)
	return c
}

// checkShape encodes root through the fast and the reflect paths, compares them, decodes the
// bytes and encodes the result again; it returns the golden line of the value.
func checkShape(t *testing.T, i int, root reflect.Value) string {
	var enc Encoder
	fast := captureShape(&enc, root, "s")
	// The same value, copied into an interface: not addressable.
	wrap := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "V", Type: reflect.TypeFor[any]()}}))
	wrap.Elem().Field(0).Set(root.Elem())
	slow := captureShape(&enc, wrap, "s")
	switch {
	case (fast.err == nil) != (slow.err == nil):
		t.Fatalf("shape %d (%s): fast path error %v, reflect path error %v", i, root.Type(), fast.err, slow.err)
	case fast.err == nil:
		name := typeName(root.Type().Elem())
		prefix := binary.AppendUvarint([]byte{fast.b[0]}, uint64(len(name))+1)
		prefix = append(prefix, name...)
		if !bytes.HasPrefix(slow.b, prefix) || !bytes.Equal(fast.b[1:], slow.b[len(prefix):]) {
			t.Fatalf("shape %d (%s): fast path wrote\n%x\nreflect path wrote\n%x", i, root.Type(), fast.b, slow.b[len(prefix):])
		}
	}
	if fast.err != nil {
		return fmt.Sprintf("error %v", fast.err)
	}
	if fast.fp && !fast.same {
		t.Fatalf("shape %d (%s): the footprint of a capture does not say the same right after it", i, root.Type())
	}
	into := reflect.New(root.Type().Elem())
	if err := DecodeValue(fast.b, into); err != nil {
		t.Fatalf("shape %d (%s): decode: %v", i, root.Type(), err)
	}
	again := captureShape(&enc, into, "s")
	if again.err != nil || !bytes.Equal(again.b, fast.b) {
		t.Fatalf("shape %d (%s): decoded value encodes as\n%x (%v), not\n%x", i, root.Type(), again.b, again.err, fast.b)
	}
	if err := enc.SortSets([]Root{{Name: "s", V: root}}); err != nil {
		t.Fatalf("shape %d (%s): SortSets: %v", i, root.Type(), err)
	}
	sorted := captureShape(&enc, root, "s")
	if !bytes.Equal(sorted.b, fast.b) {
		t.Fatalf("shape %d (%s): sorting its sets changed its bytes", i, root.Type())
	}
	return fmt.Sprintf("%016x mode %d asDecoded %t/%t/%t footprint %t %d %d",
		xxhash.Sum64(fast.b), fast.b[0], fast.asDecoded, again.asDecoded, sorted.asDecoded, fast.fp, fast.regions, fast.size)
}

func TestShapesFastMatchesReflect(t *testing.T) {
	seed := shapeSeed(t)
	g := newShapeGen(seed)
	g.bad, g.ifacePtrs = true, true
	n := 2000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		checkShape(t, i, g.shape())
	}
}

// The bytes, AsDecoded and footprints of a fixed series of random values do not drift.
func TestShapesGolden(t *testing.T) {
	var out strings.Builder
	for i := range 400 {
		g := newShapeGen(uint64(i) + 1)
		g.bad = i%4 == 0
		fmt.Fprintf(&out, "%d %s\n", i, checkShape(t, i, g.shape()))
	}
	file := filepath.Join("testdata", "shapes.golden")
	if *updateShapes {
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update-shapes to create it)", err)
	}
	if got := out.String(); got != string(want) {
		w, g := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := range min(len(w), len(g)) {
			if w[i] != g[i] {
				t.Fatalf("line %d of %s:\nwant %s\ngot  %s", i+1, file, w[i], g[i])
			}
		}
		t.Fatalf("%s has %d lines, the encodings %d", file, len(w), len(g))
	}
}

// Types that refer to themselves through slices, arrays and maps: when the first value met is the
// slice, array or map, its plan is still being built when the struct's plan needs its fast paths.
type (
	recSlice struct {
		Kids []recSlice
		N    int
	}
	recArray struct {
		Kids [2][]recArray
		N    int
	}
	recMap struct {
		Kids map[string]recMap
		N    int
	}
)

func TestRecursiveTypesFromTheInside(t *testing.T) {
	roots := []any{
		&[]recSlice{{N: 1, Kids: []recSlice{{N: 2}, {N: 3, Kids: make([]recSlice, 1, 2)}}}},
		&[2][]recArray{{{N: 1, Kids: [2][]recArray{nil, {{N: 2}}}}}, nil},
		&map[string]recMap{"a": {N: 1, Kids: map[string]recMap{"b": {N: 2}}}},
	}
	for i, r := range roots {
		checkShape(t, i, reflect.ValueOf(r))
	}
}
