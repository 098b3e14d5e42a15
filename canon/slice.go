package canon

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/cmc-go/cmc/internal/faults"
)

// buildSlice builds the plan of a slice; set makes it a multiset (order ignored).
//
// A slice is its length, its spare capacity and its elements: capacity decides whether an append
// writes in place or copies, and so what two appends to one slice share, and Decode restores it
// exactly. The memory of the whole capacity belongs to the slice, so two slices that share a
// backing array (even without overlapping) are refused. A set is restored sorted with no spare
// capacity, and its capacity is not state: the model declared that only its elements matter.
func buildSlice(p *plan, set bool) {
	t := p.t
	if set && typeMayRef(t.Elem()) {
		reject(p, fmt.Sprintf(`cmc:"set" needs an element type without pointers, maps or interfaces, not %s`, t.Elem()))
		return
	}
	elem := planLocked(t.Elem())
	size := t.Elem().Size()
	byteSlice := t.Elem().Kind() == reflect.Uint8 && !set // raw bytes, not varints
	p.min = 1
	p.enc = func(e *encoder, v reflect.Value) {
		if !set && !e.inKey {
			if e.arrayMode {
				e.arraySlice(v)
				return
			}
			if e.collect {
				e.collectWindow(v, elem)
			}
		}
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return
		}
		n, c := v.Len(), v.Cap()
		e.uvarint(uint64(n) + 1)
		if !set {
			e.uvarint(uint64(c - n))
		}
		base := v.UnsafePointer()
		if c > 0 && size > 0 {
			e.addSpan(base, uintptr(c)*size)
		}
		if !set && c > n && e.asDecoded && !allZero(unsafe.Slice((*byte)(unsafe.Add(base, uintptr(n)*size)), uintptr(c-n)*size)) {
			e.asDecoded = false // Decode restores spare capacity as zeros
		}
		switch {
		case set:
			e.setContent(v, elem)
		case byteSlice:
			e.buf = append(e.buf, unsafe.Slice((*byte)(base), n)...)
		case elem.fastEnc != nil:
			for i := range n {
				elem.fastEnc(e, unsafe.Add(base, uintptr(i)*size))
			}
		default:
			for i := range n {
				if e.tracking {
					e.push(indexSeg(i))
				}
				elem.enc(e, v.Index(i))
				if e.tracking {
					e.pop()
				}
			}
		}
	}
	p.dec = func(d *decoder, v reflect.Value) {
		if !set && d.arrays && !d.inKey {
			d.arraySlice(t, elem, v)
			return
		}
		n := d.uvarint()
		v.SetZero() // never reuse a backing array the old value may share
		if n == 0 {
			return
		}
		n--
		var spare uint64
		if !set {
			spare = d.uvarint()
		}
		d.checkCount(n, elem.min, size)
		d.chargeSpare(spare, size)
		c := int(n + spare)
		if byteSlice {
			b := make([]byte, n, c)
			copy(b, d.take(n))
			v.SetBytes(b)
			return
		}
		if c == 0 {
			v.Set(reflect.MakeSlice(t, 0, 0)) // empty, not nil
			return
		}
		// Grow, SetLen and SetCap write the new slice in place: no reflect.Value header to allocate.
		// Grow may round the capacity up to an allocation size; SetCap gives back Go's.
		v.Grow(c)
		v.SetLen(int(n))
		if !faults.LooseCapacity {
			v.SetCap(c)
		}
		switch {
		case size == 0:
			// nothing to fill
		case elem.fastDec != nil:
			base := v.UnsafePointer()
			for i := range int(n) {
				elem.fastDec(d, unsafe.Add(base, uintptr(i)*size))
			}
		default:
			wasKey := d.inKey
			d.inKey = d.inKey || set // the encoder wrote set elements as keys (setContent)
			for i := range int(n) {
				elem.dec(d, v.Index(i))
			}
			d.inKey = wasKey
		}
	}
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
