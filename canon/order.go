package canon

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// Canonical order. Map entries and set elements have no order of their own in Go; canon puts them
// in the order of their encodings (of the key, for a map), and reuses its buffers so that doing so
// allocates nothing once an Encoder has seen a state or two.

// A part is one encoded map key or set element in a scratch buffer: bytes [start:end], entry i.
// Its first 8 bytes, big-endian, order most parts without looking at the buffer.
type part struct {
	prefix     uint64
	start, end int
	i          int
}

func newPart(all []byte, start, i int) part {
	return part{prefix: prefix(all[start:]), start: start, end: len(all), i: i}
}

// prefix is the first 8 bytes of b, big-endian, zeros after its end.
func prefix(b []byte) uint64 {
	var p [8]byte
	copy(p[:], b)
	return binary.BigEndian.Uint64(p[:])
}

// sortParts sorts parts by their bytes in all, and reports whether they were in order already.
func sortParts(parts []part, all []byte) (sorted bool) {
	order := func(a, b part) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		return bytes.Compare(all[a.start:a.end], all[b.start:b.end])
	}
	if slices.IsSortedFunc(parts, order) {
		return true
	}
	slices.SortFunc(parts, order)
	return false
}

// setContent encodes the elements of a multiset of type t (elements of size bytes) sorted by their
// own encodings. Sets are mostly in order already (a restored set is, and most transitions leave
// it so), so the elements are encoded straight into the output, each compared with the one before;
// a set in order but for its last element (one just appended) has that element moved into place,
// and only a set out of order elsewhere is copied out, sorted and written back.
func (e *encoder) setContent(t reflect.Type, h sliceHeader, size uintptr, elem *plan) {
	wasKey := e.inKey
	e.inKey = true
	// Where each element's encoding starts and ends, for sorting; the first element found before
	// its predecessor.
	parts, first, disorder := e.takeParts(), len(e.buf), -1
	// The elements that begin the last set of this type written, as they were (setmemo.go).
	var m *setMemo
	k := 0
	if elem.flat {
		if m = e.setMemo(t); m != nil {
			k = m.same(h, size)
		}
	}
	if k > 0 {
		parts = m.reuse(e, k, parts)
		if m.sorted < k {
			disorder = m.sorted
		}
	}
	for i := k; i < h.len; i++ {
		start := len(e.buf)
		if e.tracking {
			e.push(indexSeg(i))
		}
		elem.fastEnc(e, unsafe.Add(h.data, uintptr(i)*size))
		if e.tracking {
			e.pop()
		}
		if disorder < 0 && i > 0 && bytes.Compare(e.buf[parts[i-1].start:start], e.buf[start:]) > 0 {
			disorder = i
		}
		parts = append(parts, part{start: start, end: len(e.buf), i: i})
	}
	e.inKey = wasKey
	if m != nil {
		m.keep(e, h, t.Elem(), size, k, parts, disorder)
	}
	if disorder >= 0 {
		e.asDecoded = false // Decode restores a set sorted
	}
	switch {
	case disorder < 0:
	case disorder == h.len-1 && !e.sortSets:
		e.insertLast(parts)
	default:
		e.sortSet(t, h, parts, first)
	}
	e.giveParts(parts)
}

// insertLast moves the encoding of the last of parts, all in order but it, before the first part
// that is greater, as sorting them would.
func (e *encoder) insertLast(parts []part) {
	last := parts[len(parts)-1]
	x := e.buf[last.start:last.end]
	j := len(parts) - 1
	for j > 0 && bytes.Compare(e.buf[parts[j-1].start:parts[j-1].end], x) > 0 {
		j--
	}
	at := parts[j].start
	tmp := append(e.takeScratch(), x...)
	copy(e.buf[at+len(tmp):], e.buf[at:last.start])
	copy(e.buf[at:], tmp)
	e.giveScratch(tmp)
}

// sortSet puts the set elements encoded from first on in order, in e.buf and, for SortSets, in the
// set h itself.
func (e *encoder) sortSet(t reflect.Type, h sliceHeader, parts []part, first int) {
	all := append(e.takeScratch(), e.buf[first:]...)
	for j := range parts {
		p := &parts[j]
		p.start, p.end = p.start-first, p.end-first
		p.prefix = prefix(all[p.start:p.end])
	}
	sortParts(parts, all)
	if e.sortSets {
		sortInPlace(t, h, parts)
	}
	e.buf = e.buf[:first]
	for _, p := range parts {
		e.buf = append(e.buf, all[p.start:p.end]...)
	}
	e.giveScratch(all)
}

// sortInPlace puts the elements of a set of type t in the order of parts, as Decode would restore
// them.
func sortInPlace(t reflect.Type, h sliceHeader, parts []part) {
	v := reflect.NewAt(t, unsafe.Pointer(&h)).Elem()
	tmp := reflect.MakeSlice(t, v.Len(), v.Len())
	reflect.Copy(tmp, v)
	for j, p := range parts {
		v.Index(j).Set(tmp.Index(p.i))
	}
}

// Scratch buffers form a stack: map keys and set elements may nest (a set element holding a set).
func (e *encoder) takeScratch() []byte {
	if n := len(e.scratch); n > 0 {
		b := e.scratch[n-1]
		e.scratch = e.scratch[:n-1]
		return b[:0]
	}
	return nil
}

func (e *encoder) giveScratch(b []byte) { e.scratch = append(e.scratch, b) }

func (e *encoder) takeParts() []part {
	if n := len(e.parts); n > 0 {
		p := e.parts[n-1]
		e.parts = e.parts[:n-1]
		return p[:0]
	}
	return nil
}

func (e *encoder) giveParts(p []part) { e.parts = append(e.parts, p) }

func buildMap(p *plan) {
	t := p.t
	if keyHoldsPointers(t.Key()) {
		reject(p, fmt.Sprintf("%s cannot be part of checked state: its keys hold pointers, whose order and identity differ between runs; key the map by value (an id or a name)", t))
		return
	}
	p.key, p.elem = planLocked(t.Key()), planLocked(t.Elem())
	p.keysExact = keysExact(t.Key())
	id := objectType(t)
	p.min = 1
	// A new map's length comes with its number, so Decode can make it that size at once.
	enc := func(e *encoder, m unsafe.Pointer) {
		if m == nil {
			e.buf = append(e.buf, 0)
			return
		}
		if e.ref(id, m, p, false, true) {
			e.uvarint(uint64(maplen(m)))
		}
	}
	p.enc = func(e *encoder, v reflect.Value) { enc(e, v.UnsafePointer()) }
	p.fastEnc = func(e *encoder, ptr unsafe.Pointer) { enc(e, *(*unsafe.Pointer)(ptr)) }
	p.dec = func(d *decoder, v reflect.Value) { v.Set(d.objectRef(t, p)) }
}

// mapContent encodes a map's entries in the order of their keys' canonical encodings, each read
// where the map holds it.
func (e *encoder) mapContent(o object) {
	p := o.plan
	if maplen(o.ptr) == 0 {
		return
	}
	e.mapHeader = o.ptr
	m := p.at(unsafe.Pointer(&e.mapHeader))
	all, entries, at := e.takeScratch(), e.takeParts(), e.entries[:0]
	saved := e.buf
	e.inKey = true
	it := &e.iter
	for it.start(m); it.key != nil; it.next() {
		start := len(all)
		e.buf = all
		if e.tracking {
			e.push(keySeg(p.key.at(it.key)))
		}
		p.key.fastEnc(e, it.key)
		if e.tracking {
			e.pop()
		}
		all = e.buf
		entries = append(entries, newPart(all, start, len(at)))
		at = append(at, it.key, it.elem)
	}
	it.done()
	e.inKey = false
	e.buf = saved
	sortParts(entries, all)
	for j, en := range entries {
		key := all[en.start:en.end]
		if e.tracking {
			e.push(keySeg(p.key.at(at[en.i])))
		}
		if j > 0 && bytes.Equal(key, all[entries[j-1].start:entries[j-1].end]) {
			e.fail("two keys of this map encode the same (NaN keys?); such a map cannot be captured canonically")
		}
		e.buf = append(e.buf, key...)
		p.elem.fastEnc(e, at[en.i+1])
		if e.tracking {
			e.pop()
		}
	}
	clear(at) // the map's memory, which the encoder must not keep alive
	e.entries, e.mapHeader = at[:0], nil
	e.giveScratch(all)
	e.giveParts(entries)
}
