package canon

import (
	"bytes"
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
// backing array (even without overlapping) are refused. A set is restored sorted, and its
// capacity is not state: the model declared that only its elements matter. So it is restored with
// room for at least one more element (what the allocator gives for one more): a set most often
// changes by an element appended, and without room every append allocated and copied the set
// (TwoPhase: 8% of a search's time, docs/performance.md).
func buildSlice(p *plan, set bool) {
	t := p.t
	if set && typeMayRef(t.Elem()) {
		reject(p, fmt.Sprintf(`cmc:"set" needs an element type without pointers, maps or interfaces, not %s`, t.Elem()))
		return
	}
	var elem *plan // built last: a recursive type may need this plan's fast paths first
	size := t.Elem().Size()
	byteSlice := t.Elem().Kind() == reflect.Uint8 && !set // raw bytes, not varints
	p.min = 1
	encode := func(e *encoder, h sliceHeader) {
		if !set && !e.inKey {
			if e.arrayMode {
				e.arraySlice(t, h)
				return
			}
			if e.collect {
				e.collectWindow(t, h, elem)
			}
		}
		if h.data == nil {
			e.buf = append(e.buf, 0)
			return
		}
		n, c, base := h.len, h.cap, h.data
		e.uvarint(uint64(n) + 1)
		if !set {
			e.uvarint(uint64(c - n))
		}
		if c > 0 && size > 0 {
			e.addSpan(base, uintptr(c)*size)
			e.fp.add(base, elem, c)
		}
		if c > n && e.asDecoded && !allZero(unsafe.Slice((*byte)(unsafe.Add(base, uintptr(n)*size)), uintptr(c-n)*size)) {
			e.asDecoded = false // Decode restores spare capacity as zeros, a set's room too
		}
		switch {
		case set:
			e.setContent(t, h, size, elem)
		case byteSlice:
			e.buf = append(e.buf, unsafe.Slice((*byte)(base), n)...)
		case e.tracking:
			for i := range n {
				e.push(indexSeg(i))
				elem.fastEnc(e, unsafe.Add(base, uintptr(i)*size))
				e.pop()
			}
		default:
			enc := elem.fastEnc
			for i := range n {
				enc(e, unsafe.Add(base, uintptr(i)*size))
			}
		}
	}
	p.fastEnc = func(e *encoder, ptr unsafe.Pointer) { encode(e, *(*sliceHeader)(ptr)) }
	p.enc = func(e *encoder, v reflect.Value) {
		if ptr, ok := addr(v); ok {
			encode(e, *(*sliceHeader)(ptr))
			return
		}
		encode(e, sliceHeader{v.UnsafePointer(), v.Len(), v.Cap()})
	}
	p.fastDec = func(d *decoder, ptr unsafe.Pointer) {
		if !set && d.arrays && !d.inKey {
			d.arraySlice(t, elem, reflect.NewAt(t, ptr).Elem())
			return
		}
		n := d.uvarint()
		*(*sliceHeader)(ptr) = sliceHeader{} // never reuse a backing array the old value may share
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
		if set {
			c++ // room for one more: see the comment on buildSlice
		}
		if byteSlice {
			b := make([]byte, n, c)
			copy(b, d.take(n))
			*(*[]byte)(ptr) = b
			d.fp.add(unsafe.Pointer(unsafe.SliceData(b)), elem, c)
			return
		}
		v := reflect.NewAt(t, ptr).Elem()
		if c == 0 {
			v.Set(reflect.MakeSlice(t, 0, 0)) // empty, not nil
			return
		}
		// Grow, SetLen and SetCap write the new slice in place: no reflect.Value header to allocate.
		// Grow may round the capacity up to an allocation size; SetCap gives back Go's.
		v.Grow(c)
		v.SetLen(int(n))
		if set {
			c = v.Cap()
		} else if !faults.LooseCapacity {
			v.SetCap(c)
		}
		if size == 0 {
			return
		}
		base, dec := *(*unsafe.Pointer)(ptr), elem.fastDec
		d.fp.add(base, elem, c)
		wasKey := d.inKey
		d.inKey = d.inKey || set // the encoder wrote set elements as keys (setContent)
		for i := range int(n) {
			dec(d, unsafe.Add(base, uintptr(i)*size))
		}
		d.inKey = wasKey
	}
	p.dec = func(d *decoder, v reflect.Value) { p.fastDec(d, unsafe.Pointer(v.UnsafeAddr())) }
	elem = planLocked(t.Elem())
}

// allZero reports whether b holds only zeros, comparing it with zeroes a block at a time (a loop
// over bytes cost AODV 4% of its instructions on the spare capacity of its sets).
func allZero(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), len(zeroes))
		if !bytes.Equal(b[:n], zeroes[:n]) {
			return false
		}
		b = b[n:]
	}
	return true
}

var zeroes [512]byte
