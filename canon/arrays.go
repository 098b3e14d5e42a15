package canon

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// Shared backing arrays. Real code keeps several slices of one array: etcd raft hands out slices
// of its storage's entries, and a message it has yet to send holds one while the storage holds the
// whole. A component whose slices share memory is captured in array mode: every backing array is
// an object of its own, numbered like any object, holding the elements some slice can see; a
// slice is a reference to its array, its capacity and its length. Restored, the slices share one
// array again, an append through one writes where the other can see it exactly as in Go, and
// capacities are Go's.
//
// An array is the memory of the capacities of slices that overlap: slices whose capacities
// overlap can write what the other sees, and slices whose capacities do not cannot, even if Go
// allocated them together (s[0:2:2] and s[2:4:4]). Its elements that no slice's length covers are
// not state (restored as zero). Finding the arrays needs every slice first, so a component is
// encoded this way only when its plain encoding found slices sharing memory: a state either has
// such sharing or not, so its encoding is still canonical. The first byte of every component's
// encoding says which mode it uses.

const (
	plainMode byte = 0
	arrayMode byte = 1
)

// A window is one backing array: the memory its slices' capacities cover and the elements their
// lengths can see.
type window struct {
	lo, end uintptr
	loPtr   unsafe.Pointer // lo, as a pointer
	elem    reflect.Type
	plan    *plan // of the elements
	live    []span
}

// collectWindow records the window of a slice of type t in collect mode.
func (e *encoder) collectWindow(t reflect.Type, h sliceHeader, elem *plan) {
	size := t.Elem().Size()
	n, c := h.len, h.cap
	if c == 0 || size == 0 {
		return
	}
	base := uintptr(h.data)
	w := window{lo: base, loPtr: h.data, end: base + uintptr(c)*size, elem: t.Elem(), plan: elem}
	if n > 0 {
		w.live = []span{{start: base, end: base + uintptr(n)*size}}
	}
	e.windows = append(e.windows, w)
}

// mergeWindows joins the windows whose memory overlaps into arrays, sorted by address.
func mergeWindows(ws []window) ([]window, error) {
	slices.SortFunc(ws, func(a, b window) int { return cmp.Compare(a.lo, b.lo) })
	var out []window
	for _, w := range ws {
		k := len(out) - 1
		if k < 0 || w.lo >= out[k].end {
			out = append(out, w)
			continue
		}
		if out[k].elem != w.elem {
			return nil, &Error{Reason: fmt.Sprintf("slices of %s and of %s share a backing array: such sharing cannot be captured; copy one of them", out[k].elem, w.elem)}
		}
		out[k].end = max(out[k].end, w.end)
		out[k].live = append(out[k].live, w.live...)
	}
	return out, nil
}

// arrayOf finds the array that holds a slice starting at base.
func (e *encoder) arrayOf(base uintptr) *window {
	i, _ := slices.BinarySearchFunc(e.arrays, base, func(w window, b uintptr) int { return cmp.Compare(w.lo, b) })
	if i < len(e.arrays) && e.arrays[i].lo == base {
		return &e.arrays[i]
	}
	if i > 0 && base < e.arrays[i-1].end {
		return &e.arrays[i-1]
	}
	return nil
}

// arraySlice encodes a slice in array mode: 0 nil; 1, length and capacity for a slice with no
// array (no capacity, or elements of size zero); or its array's number plus one (with the array's
// length when it is new), its offset in the array, its capacity and its length.
func (e *encoder) arraySlice(st reflect.Type, h sliceHeader) {
	if h.data == nil {
		e.buf = append(e.buf, 0)
		return
	}
	size := st.Elem().Size()
	n, c := h.len, h.cap
	if c == 0 || size == 0 {
		e.buf = append(e.buf, 1)
		e.uvarint(uint64(n))
		e.uvarint(uint64(c))
		return
	}
	base := uintptr(h.data)
	w := e.arrayOf(base)
	if w == nil {
		e.fail("a slice the first pass did not see (the state changed while it was captured?)")
	}
	t := reflect.SliceOf(w.elem)
	if k, ok := e.seen.get(w.lo); ok {
		if e.types[k-1] != t {
			e.fail("%s shares memory with a %s: such sharing cannot be captured", t, e.types[k-1])
		}
		if k <= e.base {
			e.fail("this slice's backing array is also %s: components are restored separately, so they cannot share memory; copy it (slices.Clone)", e.qpath(k))
		}
		e.uvarint(uint64(k-e.base) + 1)
	} else {
		k := len(e.types) + 1
		e.types = append(e.types, t)
		e.queue = append(e.queue, object{ptr: w.loPtr, arr: w})
		if e.tracking {
			e.qpaths = append(e.qpaths, e.pathString())
		}
		e.seen.put(w.lo, k)
		e.addSpan(w.loPtr, w.end-w.lo)
		e.uvarint(uint64(k-e.base) + 1)
		e.uvarint(uint64((w.end - w.lo) / size))
	}
	e.uvarint(uint64((base - w.lo) / size))
	e.uvarint(uint64(c))
	e.uvarint(uint64(n))
}

// arrayContent encodes the elements of an array that some slice can see, as runs: how many runs,
// then each run's first index, length and elements.
func (e *encoder) arrayContent(o object) {
	w := o.arr
	size := w.elem.Size()
	runs := mergeSpans(w.live)
	e.uvarint(uint64(len(runs)))
	for _, r := range runs {
		first, count := (r.start-w.lo)/size, (r.end-r.start)/size
		e.uvarint(uint64(first))
		e.uvarint(uint64(count))
		for i := range count {
			if e.tracking {
				e.push(indexSeg(int(first + i)))
			}
			w.plan.fastEnc(e, unsafe.Add(w.loPtr, (first+i)*size))
			if e.tracking {
				e.pop()
			}
		}
	}
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var out []span
	for _, s := range spans {
		if k := len(out) - 1; k >= 0 && s.start <= out[k].end {
			out[k].end = max(out[k].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// arraySlice decodes what encoder.arraySlice wrote into v, a slice of type t.
func (d *decoder) arraySlice(t reflect.Type, elem *plan, v reflect.Value) {
	tag := d.uvarint()
	switch tag {
	case 0:
		v.SetZero()
		return
	case 1:
		n, c := d.uvarint(), d.uvarint()
		if n > c {
			d.fail("slice of length %d and capacity %d", n, c)
		}
		d.chargeSpare(c, t.Elem().Size())
		v.Set(reflect.MakeSlice(t, int(n), int(c)))
		return
	}
	k := tag - 1
	var arr reflect.Value
	switch {
	case k == uint64(len(d.objs))+1:
		l := d.uvarint()
		d.checkCount(l, 0, t.Elem().Size())
		d.chargeSpare(l, t.Elem().Size())
		arr = reflect.MakeSlice(reflect.SliceOf(t.Elem()), int(l), int(l))
		d.objs = append(d.objs, decObject{v: arr, plan: elem, array: true})
	case k >= 1 && k <= uint64(len(d.objs)) && d.objs[k-1].array && d.objs[k-1].v.Type().Elem() == t.Elem():
		arr = d.objs[k-1].v
	default:
		d.fail("slice of array %d (have %d objects)", k, len(d.objs))
	}
	off, c, n := d.uvarint(), d.uvarint(), d.uvarint()
	l := uint64(arr.Len())
	if off > l || c > l-off || n > c {
		d.fail("slice at %d of capacity %d and length %d of an array of %d", off, c, n, l)
	}
	v.Set(arr.Slice3(int(off), int(off+n), int(off+c)).Convert(t))
}

// arrayContent decodes the runs of an array object.
func (d *decoder) arrayContent(o decObject) {
	runs := d.uvarint()
	l := uint64(o.v.Len())
	d.checkCount(runs, 2, 0)
	for range runs {
		first, count := d.uvarint(), d.uvarint()
		if first > l || count > l-first {
			d.fail("run %d+%d of an array of %d", first, count, l)
		}
		for i := range count {
			o.plan.dec(d, o.v.Index(int(first+i)))
		}
	}
}
