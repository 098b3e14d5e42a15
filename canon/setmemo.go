package canon

import (
	"bytes"
	"reflect"
	"unsafe"
)

// A set most often changes by one element appended: a message sent, a peer met. Its other
// elements are copied by the append as they were, byte for byte. So an encoder remembers the last
// set of each type it wrote, its elements' memory and their encodings in the set's order, and
// the next set of that type takes the encodings of the elements that begin it and whose memory is
// the same, encoding only the rest. Only for elements whose encoding their memory decides alone
// (isFlat): no pointer, slice, map, interface or function, no uintptr, no float (a NaN tells
// AsDecoded something), strings allowed, whose bytes never change while the memo's typed copy of
// the elements keeps them alive.

// setMemo is the last set of one type an encoder wrote.
type setMemo struct {
	t      reflect.Type // the set's slice type
	gen    uint64       // planGen when it was written: the rules decide the encodings
	raw    unsafe.Pointer
	rawCap int    // raw has room for rawCap elements
	n      int    // elements in raw
	enc    []byte // their encodings, one after another
	ends   []int  // where each element's encoding ends in enc
	sorted int    // elements [0, sorted) are each not below the one before
}

// maxSetMemos is how many set types an encoder remembers a set of.
const maxSetMemos = 4

// setMemo returns the memo of sets of type t; nil while tracking paths.
func (e *encoder) setMemo(t reflect.Type) *setMemo {
	if e.tracking {
		return nil
	}
	g := planGen.Load()
	for i := range e.setMemos {
		if m := &e.setMemos[i]; m.t == t {
			if m.gen != g {
				*m = setMemo{t: t, gen: g, enc: m.enc[:0], ends: m.ends[:0]}
			}
			return m
		}
	}
	if len(e.setMemos) == maxSetMemos {
		return nil
	}
	e.setMemos = append(e.setMemos, setMemo{t: t, gen: g})
	return &e.setMemos[len(e.setMemos)-1]
}

// same returns how many elements that begin set h (of elements of size bytes) are in memory those
// that begin m. Most often all of m's are, or all but its last (m was the set a run appended one
// element to, h the set another run of the same state appended another to): each is one
// comparison of the whole run of elements.
func (m *setMemo) same(h sliceHeader, size uintptr) int {
	n := min(h.len, m.n)
	for _, k := range [2]int{n, n - 1} {
		if k > 0 && bytes.Equal(unsafe.Slice((*byte)(h.data), uintptr(k)*size), unsafe.Slice((*byte)(m.raw), uintptr(k)*size)) {
			return k
		}
	}
	return 0
}

// reuse appends to e.buf the encodings of the first k elements of m, with their parts.
func (m *setMemo) reuse(e *encoder, k int, parts []part) []part {
	base, start := len(e.buf), 0
	e.buf = append(e.buf, m.enc[:m.ends[k-1]]...)
	for i := range k {
		parts = append(parts, part{start: base + start, end: base + m.ends[i], i: i})
		start = m.ends[i]
	}
	return parts
}

// keep makes m the memo of set h of elements of type et (size bytes each), whose first k elements
// it had already and whose encodings, in the set's order, parts locate in e.buf; disorder is the
// first element below the one before it (-1: none).
func (m *setMemo) keep(e *encoder, h sliceHeader, et reflect.Type, size uintptr, k int, parts []part, disorder int) {
	if k == h.len {
		return
	}
	typ := rtypeOf(et)
	if m.rawCap < h.len {
		c := max(2*m.rawCap, h.len, 4)
		raw := unsafe_NewArray(typ, c)
		typedslicecopy(typ, sliceHeader{raw, k, k}, sliceHeader{m.raw, k, k})
		m.raw, m.rawCap = raw, c
	}
	n := h.len - k
	off := uintptr(k) * size
	typedslicecopy(typ, sliceHeader{unsafe.Add(m.raw, off), n, n}, sliceHeader{unsafe.Add(h.data, off), n, n})
	if m.n > h.len {
		// Elements past the set's end no longer belong to it: let go of their strings.
		zero := reflect.Zero(et)
		for i := h.len; i < m.n; i++ {
			reflect.NewAt(et, unsafe.Add(m.raw, uintptr(i)*size)).Elem().Set(zero)
		}
	}
	m.n = h.len
	m.ends, m.enc = m.ends[:k], m.enc[:0]
	if k > 0 {
		m.enc = m.enc[:m.ends[k-1]]
	}
	for i := k; i < h.len; i++ {
		p := parts[i]
		m.enc = append(m.enc, e.buf[p.start:p.end]...)
		m.ends = append(m.ends, len(m.enc))
	}
	m.sorted = h.len
	if disorder >= 0 {
		m.sorted = disorder
	}
}

// isFlat reports whether a value of type t is encoded from its memory alone: see setMemo.
func isFlat(t reflect.Type) bool {
	return everyLeaf(t, func(k reflect.Kind) bool {
		switch k {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.String:
			return true
		}
		return false
	})
}
