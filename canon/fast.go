package canon

import (
	"encoding/binary"
	"math"
	"reflect"
	"unsafe"
)

// Fast paths. Most state is structs of scalars reached through pointers, maps and slices, and such
// values sit in addressable memory: reading them through typed pointers skips a reflect.Value and
// a reflect call per field. Only scalars, and structs and arrays made of them, get fast paths;
// they cannot fail, so no error path is lost. The bytes are the same as the reflect paths write.

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

func (e *encoder) varint(x int64) { e.buf = binary.AppendVarint(e.buf, x) }

func (e *encoder) float(f float64) {
	if f != f {
		e.asDecoded = false // every NaN restores as one NaN
	}
	e.buf = binary.LittleEndian.AppendUint64(e.buf, floatBits(f))
}

func (d *decoder) float() float64 { return math.Float64frombits(d.u64()) }

// arrayFast returns the fast paths of an array of n elements of size size, given its element's.
func arrayFast(n int, size uintptr, enc fastEnc, dec fastDec) (fastEnc, fastDec) {
	return func(e *encoder, p unsafe.Pointer) {
			for i := range n {
				enc(e, unsafe.Add(p, uintptr(i)*size))
			}
		}, func(d *decoder, p unsafe.Pointer) {
			for i := range n {
				dec(d, unsafe.Add(p, uintptr(i)*size))
			}
		}
}

// structFast returns the fast paths of a struct whose captured fields all have them.
func structFast(fields []field) (fastEnc, fastDec) {
	for _, f := range fields {
		if f.plan.fastEnc == nil || f.plan.fastDec == nil {
			return nil, nil
		}
	}
	return func(e *encoder, p unsafe.Pointer) {
			for i := range fields {
				fields[i].plan.fastEnc(e, unsafe.Add(p, fields[i].offset))
			}
		}, func(d *decoder, p unsafe.Pointer) {
			for i := range fields {
				fields[i].plan.fastDec(d, unsafe.Add(p, fields[i].offset))
			}
		}
}

// addr returns the address of v, when it is addressable.
func addr(v reflect.Value) (unsafe.Pointer, bool) {
	if !v.CanAddr() {
		return nil, false
	}
	return unsafe.Pointer(v.UnsafeAddr()), true
}
