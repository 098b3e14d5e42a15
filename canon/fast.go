package canon

import (
	"math"
	"reflect"
	"unsafe"
)

// Fast paths. State sits in addressable memory (the roots, pointees, backing arrays, map entries),
// so canon reads and writes it through unsafe pointers with one closure call per value,
// instead of a reflect.Value per field and element. Every plan has fast paths: scalars, arrays,
// structs, slices and pointers their own; other kinds (maps, interfaces, funcs, mutexes, rejected
// types) wrap their reflect paths (reflectFast). The reflect paths remain for values that are not
// addressable (a copy inside an interface, a map key handed to encodeInline); the bytes are the
// same either way (TestShapesFastMatchesReflect).
//
// A fast path may fail (a pointer into another object, a rejected type), so while tracking the path
// for an error message, composite fast paths push each field's and element's segment as the reflect
// paths do.

// fastEnc appends the encoding of the value at p; fastDec decodes into the value at p.
type (
	fastEnc func(e *encoder, p unsafe.Pointer)
	fastDec func(d *decoder, p unsafe.Pointer)
)

// scalarFast returns the fast paths of a scalar kind, or nils.
func scalarFast(k reflect.Kind) (fastEnc, fastDec) {
	switch k {
	case reflect.Bool:
		return func(e *encoder, p unsafe.Pointer) {
				e.buf = append(e.buf, *(*byte)(p)&1)
			}, func(d *decoder, p unsafe.Pointer) {
				*(*bool)(p) = d.bool()
			}
	case reflect.Int:
		return func(e *encoder, p unsafe.Pointer) { e.varint(int64(*(*int)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*int)(p) = int(d.varint()) }
	case reflect.Int8:
		return func(e *encoder, p unsafe.Pointer) { e.varint(int64(*(*int8)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*int8)(p) = int8(d.varint()) }
	case reflect.Int16:
		return func(e *encoder, p unsafe.Pointer) { e.varint(int64(*(*int16)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*int16)(p) = int16(d.varint()) }
	case reflect.Int32:
		return func(e *encoder, p unsafe.Pointer) { e.varint(int64(*(*int32)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*int32)(p) = int32(d.varint()) }
	case reflect.Int64:
		return func(e *encoder, p unsafe.Pointer) { e.varint(*(*int64)(p)) },
			func(d *decoder, p unsafe.Pointer) { *(*int64)(p) = d.varint() }
	case reflect.Uint:
		return func(e *encoder, p unsafe.Pointer) { e.uvarint(uint64(*(*uint)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*uint)(p) = uint(d.uvarint()) }
	case reflect.Uint8:
		return func(e *encoder, p unsafe.Pointer) { e.uvarint(uint64(*(*uint8)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*uint8)(p) = uint8(d.uvarint()) }
	case reflect.Uint16:
		return func(e *encoder, p unsafe.Pointer) { e.uvarint(uint64(*(*uint16)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*uint16)(p) = uint16(d.uvarint()) }
	case reflect.Uint32:
		return func(e *encoder, p unsafe.Pointer) { e.uvarint(uint64(*(*uint32)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*uint32)(p) = uint32(d.uvarint()) }
	case reflect.Uint64:
		return func(e *encoder, p unsafe.Pointer) { e.uvarint(*(*uint64)(p)) },
			func(d *decoder, p unsafe.Pointer) { *(*uint64)(p) = d.uvarint() }
	case reflect.Float32:
		return func(e *encoder, p unsafe.Pointer) { e.float(float64(*(*float32)(p))) },
			func(d *decoder, p unsafe.Pointer) { *(*float32)(p) = float32(d.float()) }
	case reflect.Float64:
		return func(e *encoder, p unsafe.Pointer) { e.float(*(*float64)(p)) },
			func(d *decoder, p unsafe.Pointer) { *(*float64)(p) = d.float() }
	case reflect.Complex64:
		return func(e *encoder, p unsafe.Pointer) {
				c := *(*complex64)(p)
				e.float(float64(real(c)))
				e.float(float64(imag(c)))
			}, func(d *decoder, p unsafe.Pointer) {
				re := d.float()
				*(*complex64)(p) = complex64(complex(re, d.float()))
			}
	case reflect.Complex128:
		return func(e *encoder, p unsafe.Pointer) {
				c := *(*complex128)(p)
				e.float(real(c))
				e.float(imag(c))
			}, func(d *decoder, p unsafe.Pointer) {
				re := d.float()
				*(*complex128)(p) = complex(re, d.float())
			}
	case reflect.String:
		return func(e *encoder, p unsafe.Pointer) {
				s := *(*string)(p)
				e.uvarint(uint64(len(s)))
				e.buf = append(e.buf, s...)
			}, func(d *decoder, p unsafe.Pointer) {
				*(*string)(p) = d.str()
			}
	}
	return nil, nil
}

// varint appends x as binary.AppendVarint does (zig-zag), in place as uvarint does.
func (e *encoder) varint(x int64) {
	u := uint64(x) << 1
	if x < 0 {
		u = ^u
	}
	e.uvarint(u)
}

func (e *encoder) float(f float64) {
	if f != f {
		e.asDecoded = false // every NaN restores as one NaN
	}
	b := floatBits(f)
	e.buf = append(e.buf, byte(b), byte(b>>8), byte(b>>16), byte(b>>24), byte(b>>32), byte(b>>40), byte(b>>48), byte(b>>56))
}

func (d *decoder) float() float64 { return math.Float64frombits(d.u64()) }

// arrayFast returns the fast paths of an array of n elements of size size. elem is read when a
// value is encoded, not now: a recursive type's element plan may still be under construction.
func arrayFast(n int, size uintptr, elem **plan) (fastEnc, fastDec) {
	return func(e *encoder, p unsafe.Pointer) {
			enc := (*elem).fastEnc
			for i := range n {
				if e.tracking {
					e.push(indexSeg(i))
					enc(e, unsafe.Add(p, uintptr(i)*size))
					e.pop()
					continue
				}
				enc(e, unsafe.Add(p, uintptr(i)*size))
			}
		}, func(d *decoder, p unsafe.Pointer) {
			dec := (*elem).fastDec
			for i := range n {
				dec(d, unsafe.Add(p, uintptr(i)*size))
			}
		}
}

// structFast returns the fast paths of a struct. *fields and *hidden are read when a value is
// encoded: they are filled after the paths are made, so that a recursive type finds them.
func structFast(fields *[]field, hidden *[]reflect.StructField) (fastEnc, fastDec) {
	return func(e *encoder, p unsafe.Pointer) {
			if *hidden != nil {
				e.hidden(*hidden, p, reflect.Value{})
			}
			fs := *fields
			if e.tracking {
				for i := range fs {
					e.push("." + fs[i].name)
					fs[i].plan.fastEnc(e, unsafe.Add(p, fs[i].offset))
					e.pop()
				}
				return
			}
			for i := range fs {
				fs[i].plan.fastEnc(e, unsafe.Add(p, fs[i].offset))
			}
		}, func(d *decoder, p unsafe.Pointer) {
			fs := *fields
			for i := range fs {
				fs[i].plan.fastDec(d, unsafe.Add(p, fs[i].offset))
			}
		}
}

// pointerFast returns the fast paths of pointer type t: a reference to the pointee (elem's plan).
func pointerFast(t reflect.Type, elem **plan) (fastEnc, fastDec) {
	zeroSize := t.Elem().Size() == 0
	id := objectType(t)
	return func(e *encoder, p unsafe.Pointer) {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				e.buf = append(e.buf, 0)
				return
			}
			e.ref(id, q, *elem, zeroSize, false)
		}, func(d *decoder, p unsafe.Pointer) {
			*(*unsafe.Pointer)(p) = d.pointee(t, *elem)
		}
}

// reflectFast gives p fast paths that call its reflect paths, if it has none of its own.
func reflectFast(p *plan) {
	p.ptrType = rtypeOf(reflect.PointerTo(p.t))
	if p.fastEnc == nil {
		p.fastEnc = func(e *encoder, ptr unsafe.Pointer) { p.enc(e, p.at(ptr)) }
	}
	if p.fastDec == nil {
		p.fastDec = func(d *decoder, ptr unsafe.Pointer) { p.dec(d, p.at(ptr)) }
	}
}

// at returns the value of p's type at ptr, addressable: reflect.NewAt(p.t, ptr).Elem() without
// looking the pointer type up. NewAt asks a process-wide table for it at every call when the
// program never names it (*map[K]V, *func(), *interface{...}): 2.6% of an etcd raft search's
// instructions.
func (p *plan) at(ptr unsafe.Pointer) reflect.Value {
	var i any
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&i)) // an interface's words: type, data
	w[0], w[1] = p.ptrType, ptr
	return reflect.ValueOf(i).Elem()
}

// sliceHeader is the memory of any slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// addr returns the address of v, when it is addressable.
func addr(v reflect.Value) (unsafe.Pointer, bool) {
	if !v.CanAddr() {
		return nil, false
	}
	return unsafe.Pointer(v.UnsafeAddr()), true
}
