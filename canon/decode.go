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
// names Encode saw).
func Decode(b []byte, root any) error {
	return DecodeValue(b, reflect.ValueOf(root))
}

// DecodeValue is Decode for a reflect.Value.
func DecodeValue(b []byte, root reflect.Value) (err error) {
	if root.Kind() != reflect.Pointer || root.IsNil() {
		return fmt.Errorf("decode state: root must be a non-nil pointer, not %s", root.Type())
	}
	d := decoder{buf: b}
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(decodeFailure)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("decode state at byte %d: %s", d.pos, f.msg)
		}
	}()
	d.objs = append(d.objs, root)
	for i := 0; i < len(d.objs); i++ {
		o := d.objs[i]
		if o.Kind() == reflect.Map {
			d.mapContent(o)
		} else {
			planFor(o.Type().Elem()).dec(&d, o.Elem())
		}
	}
	if d.pos != len(d.buf) {
		d.fail("%d bytes left over", len(d.buf)-d.pos)
	}
	return nil
}

type decoder struct {
	buf  []byte
	pos  int
	objs []reflect.Value // object number-1 -> pointer or map
}

type decodeFailure struct{ msg string }

func (d *decoder) fail(format string, args ...any) {
	panic(decodeFailure{fmt.Sprintf(format, args...)})
}

// check guards allocations against corrupt lengths.
func (d *decoder) check(n uint64) {
	if n > uint64(len(d.buf)-d.pos)+1 {
		d.fail("length %d exceeds the remaining %d bytes", n, len(d.buf)-d.pos)
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

func (d *decoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad uvarint")
	}
	d.pos += n
	return x
}

func (d *decoder) varint() int64 {
	x, n := binary.Varint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad varint")
	}
	d.pos += n
	return x
}

func (d *decoder) u64() uint64 {
	if d.pos+8 > len(d.buf) {
		d.fail("unexpected end")
	}
	x := binary.LittleEndian.Uint64(d.buf[d.pos:])
	d.pos += 8
	return x
}

func (d *decoder) bytes(n uint64) []byte {
	d.check(n)
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

func decBool(d *decoder, v reflect.Value) {
	switch d.byte() {
	case 0:
		v.SetBool(false)
	case 1:
		v.SetBool(true)
	default:
		d.fail("bad bool")
	}
}

func decInt(d *decoder, v reflect.Value)  { v.SetInt(d.varint()) }
func decUint(d *decoder, v reflect.Value) { v.SetUint(d.uvarint()) }

func decFloat(d *decoder, v reflect.Value) { v.SetFloat(math.Float64frombits(d.u64())) }

func decComplex(d *decoder, v reflect.Value) {
	re := math.Float64frombits(d.u64())
	im := math.Float64frombits(d.u64())
	v.SetComplex(complex(re, im))
}

func decString(d *decoder, v reflect.Value) { v.SetString(string(d.bytes(d.uvarint()))) }

// objectRef resolves an object number: an earlier object, or the next new one, allocated now and
// filled when its turn comes.
func (d *decoder) objectRef(t reflect.Type) reflect.Value {
	n := d.uvarint()
	switch {
	case n == 0:
		return reflect.Zero(t)
	case n <= uint64(len(d.objs)):
		o := d.objs[n-1]
		if o.Type() != t {
			d.fail("object %d is a %s, not a %s", n, o.Type(), t)
		}
		return o
	case n == uint64(len(d.objs))+1:
		var o reflect.Value
		if t.Kind() == reflect.Map {
			o = reflect.MakeMap(t)
		} else {
			o = reflect.New(t.Elem())
		}
		d.objs = append(d.objs, o)
		return o
	}
	d.fail("object %d out of order (have %d)", n, len(d.objs))
	return reflect.Value{}
}

func decPointer(d *decoder, v reflect.Value) { v.Set(d.objectRef(v.Type())) }
func decMapRef(d *decoder, v reflect.Value)  { v.Set(d.objectRef(v.Type())) }

func (d *decoder) mapContent(m reflect.Value) {
	t := m.Type()
	kp, vp := planFor(t.Key()), planFor(t.Elem())
	n := d.uvarint()
	d.check(n)
	for range n {
		k := reflect.New(t.Key()).Elem()
		kp.dec(d, k)
		val := reflect.New(t.Elem()).Elem()
		vp.dec(d, val)
		m.SetMapIndex(k, val)
	}
}

func decInterface(d *decoder, v reflect.Value) {
	n := d.uvarint()
	if n == 0 {
		v.SetZero()
		return
	}
	name := string(d.bytes(n - 1))
	t, ok := types.Load(name)
	if !ok {
		d.fail("unknown dynamic type %q", name)
	}
	c := reflect.New(t.(reflect.Type)).Elem()
	planFor(c.Type()).dec(d, c)
	v.Set(c)
}
