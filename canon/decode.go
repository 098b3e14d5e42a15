package canon

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

// Decode restores the state encoded in b into the value root points to. It rebuilds every object
// below the root afresh; fields of the root object tagged cmc:"-" keep their current values.
// Decode only accepts bytes Encode produced in this process (it resolves interface types by the
// names Encode saw). Corrupt bytes give an error, never a panic, and allocate at most a small
// multiple of len(b), plus 1 MiB for capacity the bytes do not describe (chargeSpare).
func Decode(b []byte, root any) error {
	return DecodeValue(b, reflect.ValueOf(root))
}

// DecodeValue is Decode for a reflect.Value.
func DecodeValue(b []byte, root reflect.Value) error {
	var d decoder
	return d.decode(b, root)
}

// A Decoder is Decode that keeps its buffers between calls, and shares the short strings it
// decodes (see decoder.str). It is not safe for concurrent use.
type Decoder struct {
	d     decoder
	plans planCache
}

// maxShared bounds a Decoder's table of short strings.
const maxShared = 1 << 16

// DecodeValue is Decode for a reflect.Value.
func (dec *Decoder) DecodeValue(b []byte, root reflect.Value) error {
	if dec.d.strings == nil {
		dec.d.strings = make(map[string]string)
		dec.d.plans = &dec.plans
	}
	return dec.d.decode(b, root)
}

// Footprint makes f the footprint of the value the last DecodeValue restored, and reports whether
// it has one. Call it before the value changes.
func (dec *Decoder) Footprint(f *Footprint) bool { return dec.d.fp.fill(f) }

// decode decodes b into root. It keeps d's scratch space, string table and plans.
func (d *decoder) decode(b []byte, root reflect.Value) (err error) {
	if !root.IsValid() {
		return fmt.Errorf("decode state: root must be a non-nil pointer, not nil")
	}
	if root.Kind() != reflect.Pointer || root.IsNil() {
		return fmt.Errorf("decode state: root must be a non-nil pointer, not %s", root.Type())
	}
	if len(b) == 0 || b[0] > arrayMode {
		return fmt.Errorf("decode state: not a canonical encoding (mode byte)")
	}
	d.buf, d.pos, d.arrays, d.spare, d.inKey = b, 1, b[0] == arrayMode, 1<<20+1024*uint64(len(b)), false
	defer func() {
		clear(d.objs) // do not keep the state alive through the decoder
		d.objs, d.buf, d.word = d.objs[:0], nil, nil
		if r := recover(); r != nil {
			f, ok := r.(decodeFailure)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("decode state at byte %d: %s", d.pos, f.msg)
		}
	}()
	rootPlan := d.plans.get(root.Type().Elem())
	d.fp.start(root.UnsafePointer())
	d.fp.ok = !d.arrays
	d.fp.add(root.UnsafePointer(), rootPlan, 1)
	d.objs = append(d.objs, decObject{v: root, plan: rootPlan})
	for i := 0; i < len(d.objs); i++ {
		o := d.objs[i]
		switch {
		case o.array:
			d.arrayContent(o)
		case o.v.Kind() == reflect.Map:
			d.mapContent(o)
		default:
			o.plan.fastDec(d, o.v.UnsafePointer())
		}
	}
	if d.pos != len(d.buf) {
		d.fail("%d bytes left over", len(d.buf)-d.pos)
	}
	return nil
}

type decoder struct {
	buf     []byte
	pos     int
	objs    []decObject       // object number-1 -> pointer, map or backing array
	arrays  bool              // array mode (arrays.go)
	spare   uint64            // bytes of memory that no input byte describes (capacity) still allowed
	inKey   bool              // decoding a map key or set element, which the encoder wrote plainly
	strings map[string]string // short strings decoded before (decoder.str)
	plans   *planCache        // nil: none
	dyn     []dynType         // interfaces' dynamic types met so far (interfaces.go)
	word    unsafe.Pointer    // scratch for a pointer-shaped value inside an interface
	funcs   []funcFound       // func values restored so far (funcs.go)
	fp      footprinter       // the memory of the value being decoded (Decoder.Footprint)
}

type decObject struct {
	v     reflect.Value
	plan  *plan  // of the pointee, or of the map, or of an array's elements
	n     uint64 // entries of a map
	array bool   // a backing array (arrays.go)
}

type decodeFailure struct{ msg string }

func (d *decoder) fail(format string, args ...any) {
	panic(decodeFailure{fmt.Sprintf(format, args...)})
}

// maxSilent bounds the memory of a slice whose elements encode to no bytes at all (mutexes),
// which the length of the input cannot bound.
const maxSilent = 64 << 20

// chargeSpare accounts for n elements of size bytes that the input does not describe (spare
// capacity, array elements no slice sees): a corrupt length must not allocate gigabytes. The
// allowance, 1 MiB plus 1 KiB per input byte, is far above what real states hold.
func (d *decoder) chargeSpare(n uint64, size uintptr) {
	if size == 0 {
		return
	}
	if n > d.spare/uint64(size) {
		d.fail("%d elements of spare capacity are more than %d bytes of input can describe", n, len(d.buf))
	}
	d.spare -= n * uint64(size)
}

// checkCount guards allocations against corrupt lengths: n values of at least min bytes each must
// fit in what is left.
func (d *decoder) checkCount(n, min uint64, size uintptr) {
	left := uint64(len(d.buf) - d.pos)
	switch {
	case min > 0 && n > left/min:
		d.fail("%d values of %d bytes or more exceed the remaining %d bytes", n, min, left)
	case min == 0 && size > 0 && n > maxSilent/uint64(size):
		d.fail("%d values of %d bytes are too many", n, size)
	case n > math.MaxInt32:
		d.fail("%d values are too many", n)
	}
}

func (d *decoder) byte() byte {
	if d.pos >= len(d.buf) {
		d.fail("unexpected end")
	}
	b := d.buf[d.pos]
	d.pos++
	return b
}

// uvarint and varint read most numbers, which are small, in one byte without a call; the rest take
// the long way.
func (d *decoder) uvarint() uint64 {
	if pos := d.pos; pos < len(d.buf) {
		if b := d.buf[pos]; b < 0x80 {
			d.pos = pos + 1
			return uint64(b)
		}
	}
	return d.longUvarint()
}

func (d *decoder) longUvarint() uint64 {
	x, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad uvarint")
	}
	d.pos += n
	return x
}

func (d *decoder) varint() int64 {
	if pos := d.pos; pos < len(d.buf) {
		if b := d.buf[pos]; b < 0x80 {
			d.pos = pos + 1
			return int64(b>>1) ^ -int64(b&1) // zig-zag, as binary.Varint
		}
	}
	return d.longVarint()
}

func (d *decoder) longVarint() int64 {
	x, n := binary.Varint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad varint")
	}
	d.pos += n
	return x
}

func (d *decoder) u64() uint64 {
	if len(d.buf)-d.pos < 8 {
		d.fail("unexpected end")
	}
	x := binary.LittleEndian.Uint64(d.buf[d.pos:])
	d.pos += 8
	return x
}

// take returns the next n bytes.
func (d *decoder) take(n uint64) []byte {
	if n > uint64(len(d.buf)-d.pos) {
		d.fail("length %d exceeds the remaining %d bytes", n, len(d.buf)-d.pos)
	}
	b := d.buf[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b
}

// settable makes a field value settable even when it is unexported: the checker owns the state.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func (d *decoder) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("bad bool")
	return false
}

func decBool(d *decoder, v reflect.Value) { v.SetBool(d.bool()) }

func decInt(d *decoder, v reflect.Value)  { v.SetInt(d.varint()) }
func decUint(d *decoder, v reflect.Value) { v.SetUint(d.uvarint()) }

func decFloat(d *decoder, v reflect.Value) { v.SetFloat(d.float()) }

func decComplex(d *decoder, v reflect.Value) {
	re := d.float()
	v.SetComplex(complex(re, d.float()))
}

func decString(d *decoder, v reflect.Value) { v.SetString(d.str()) }

// str decodes a string. Short strings are shared through the Decoder's table: checked state is
// full of the same few names (states, message types), and restoring a state should not allocate
// them again. Strings are immutable, so sharing them is invisible to the program. The table is the
// Decoder's own, not the process's: a lookup is then a plain map read, with no lock.
func (d *decoder) str() string {
	b := d.take(d.uvarint())
	if len(b) > 32 {
		return string(b)
	}
	if s, ok := d.strings[string(b)]; ok { // no allocation: the compiler elides string(b) in a lookup
		return s
	}
	s := string(b)
	if d.strings != nil && len(d.strings) < maxShared {
		d.strings[s] = s
	}
	return s
}

// objectRef resolves an object number: an earlier object, or the next new one, allocated now and
// filled when its turn comes. t is a pointer or map type; p the plan of the pointee or map.
func (d *decoder) objectRef(t reflect.Type, p *plan) reflect.Value {
	n := d.uvarint()
	switch {
	case n == 0:
		return reflect.Zero(t)
	case n == 1:
		d.fp.global()
		return d.global(t)
	}
	n--
	switch {
	case n <= uint64(len(d.objs)):
		o := d.objs[n-1].v
		switch {
		case o.Type() == t:
		case objectType(o.Type()) == objectType(t): // a named and an unnamed type alias it
			o = o.Convert(t)
		default:
			d.fail("object %d is a %s, not a %s", n, o.Type(), t)
		}
		return o
	case n == uint64(len(d.objs))+1:
		if t.Kind() == reflect.Map {
			size := d.uvarint()
			d.checkCount(size, max(1, addMin(p.key.min, p.elem.min)), 0)
			o := reflect.MakeMapWithSize(t, int(size))
			d.fp.addMap(nil, p, o)
			d.objs = append(d.objs, decObject{v: o, plan: p, n: size})
			return o
		}
		o := reflect.New(t.Elem())
		d.fp.add(o.UnsafePointer(), p, 1)
		if o.Type() != t { // a named pointer type
			o = o.Convert(t)
		}
		d.objs = append(d.objs, decObject{v: o, plan: p})
		return o
	}
	d.fail("object %d out of order (have %d)", n, len(d.objs))
	return reflect.Value{}
}

// pointee is objectRef for a pointer's fast path, which needs only the pointee's address. A new
// object, the common case, is allocated as its plan's type (a named pointer type's objects are
// converted when a later reference meets them), without asking reflect for types on the way.
func (d *decoder) pointee(t reflect.Type, p *plan) unsafe.Pointer {
	pos := d.pos
	if n := d.uvarint(); n >= 2 && n-1 == uint64(len(d.objs))+1 {
		o := reflect.New(p.t)
		d.fp.add(o.UnsafePointer(), p, 1)
		d.objs = append(d.objs, decObject{v: o, plan: p})
		return o.UnsafePointer()
	}
	d.pos = pos
	return d.objectRef(t, p).UnsafePointer()
}

// global restores a reference to a global (globals.go) by its name.
func (d *decoder) global(t reflect.Type) reflect.Value {
	name := d.take(d.uvarint())
	ptr, ok := globalsTable().pointer(string(name))
	if !ok {
		d.fail("unknown global %q", name)
	}
	if t.Kind() == reflect.Map {
		return reflect.NewAt(t, unsafe.Pointer(&ptr)).Elem()
	}
	return reflect.NewAt(t.Elem(), ptr).Convert(t)
}

func (d *decoder) mapContent(o decObject) {
	m, p, n := o.v, o.plan, o.n
	if n == 0 {
		return
	}
	// SetMapIndex copies, so one key and one value serve every entry.
	k := reflect.New(p.t.Key()).Elem()
	val := reflect.New(p.t.Elem()).Elem()
	kp, vp := unsafe.Pointer(k.UnsafeAddr()), unsafe.Pointer(val.UnsafeAddr())
	for range n {
		k.SetZero()
		d.inKey = true
		p.key.fastDec(d, kp)
		d.inKey = false
		val.SetZero()
		p.elem.fastDec(d, vp)
		m.SetMapIndex(k, val)
	}
}

func decInterface(d *decoder, v reflect.Value) {
	n := d.uvarint()
	if n == 0 {
		v.SetZero()
		return
	}
	name := d.take(n - 1)
	t, ok := types.Load(string(name))
	if !ok {
		d.fail("unknown dynamic type %q", name)
	}
	ct := t.(reflect.Type)
	if !ct.AssignableTo(v.Type()) {
		d.fail("%s does not implement %s", ct, v.Type())
	}
	c := reflect.New(ct)
	d.plans.get(ct).fastDec(d, c.UnsafePointer())
	v.Set(c.Elem())
}
