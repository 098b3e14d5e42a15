package canon

import (
	"bytes"
	"reflect"
	"unsafe"
)

// A Footprint is the memory a component's live value occupies, and a copy of what that memory held
// when the value was captured (Encoder.Footprint) or restored (Decoder.Footprint). While every byte
// is the same, the value is the same, and so are its canonical bytes: a checker need neither
// encode it again nor restore it. Why the comparison is enough: the regions are every object,
// backing array and root the value reaches, in the order they were reached, so each one's pointer
// lies in a region compared before it; strings, the only memory outside, never change. Values
// holding maps (whose memory is not flat), globals (whose contents lie elsewhere) or slices in
// array mode have no footprint.
//
// Once a handler has changed the value, Restore writes the copy back: the value is again the one
// the footprint saw, without decoding. The copy is typed memory, written and read with the
// runtime's write barriers, so the collector sees every pointer it holds and the objects and
// strings the old value reached stay alive while the footprint does.
type Footprint struct {
	regions []region
	shadows []shadow
	// root lists the root object's state fields when it also has fields that are not state: a
	// restore leaves those as they are, as Decode does. Nil: the whole root is state.
	root []field
}

// region is memory an object owns: n values of one type. The pointer keeps the object alive, so a
// footprint never reads freed memory.
type region struct {
	start unsafe.Pointer
	typ   unsafe.Pointer // the runtime's type of one value
	n     int
	size  uintptr // n times the value's size
}

// shadow is a typed copy of a region: room for n values of type typ.
type shadow struct {
	ptr unsafe.Pointer
	typ unsafe.Pointer
	n   int
}

// Same reports whether the memory still holds what it held.
func (f *Footprint) Same() bool {
	for i, r := range f.regions {
		if !bytes.Equal(unsafe.Slice((*byte)(r.start), r.size), unsafe.Slice((*byte)(f.shadows[i].ptr), r.size)) {
			return false
		}
	}
	return true
}

// Restore makes the memory hold again what it held when the footprint was recorded, and reports
// whether f is a footprint (a cleared one restores nothing).
func (f *Footprint) Restore() bool {
	if len(f.regions) == 0 {
		return false
	}
	for i, r := range f.regions {
		src := f.shadows[i].ptr
		if i == 0 && f.root != nil {
			for _, fl := range f.root {
				typedmemmove(rtypeOf(fl.plan.t), unsafe.Add(r.start, fl.offset), unsafe.Add(src, fl.offset))
			}
			continue
		}
		typedslicecopy(r.typ, sliceHeader{r.start, r.n, r.n}, sliceHeader{src, r.n, r.n})
	}
	return true
}

// record makes f the footprint of regions, copying their values now. Shadows are kept from one
// recording to the next when a region's type and length fit.
func (f *Footprint) record(regions []region, root []field) {
	f.regions = append(f.regions[:0], regions...)
	f.root = root
	if len(f.shadows) < len(regions) {
		f.shadows = append(f.shadows, make([]shadow, len(regions)-len(f.shadows))...)
	}
	for i, r := range regions {
		s := &f.shadows[i]
		if s.typ != r.typ || s.n < r.n {
			*s = shadow{ptr: unsafe_NewArray(r.typ, r.n), typ: r.typ, n: r.n}
		}
		typedslicecopy(r.typ, sliceHeader{s.ptr, r.n, r.n}, sliceHeader{r.start, r.n, r.n})
	}
}

// Clear drops the footprint's references, so it does not keep old objects alive.
func (f *Footprint) Clear() {
	clear(f.regions)
	f.regions = f.regions[:0]
	clear(f.shadows)
	f.shadows = f.shadows[:0]
	f.root = nil
}

// spans adds the footprint's memory to a capture's sharing checks, for a component that is not
// encoded again because it is unchanged.
func (f *Footprint) spans(e *encoder) {
	for _, r := range f.regions {
		e.addSpan(r.start, r.size)
	}
}

// A footprinter collects the regions of the component being encoded or decoded; ok turns false
// when the component has memory a footprint cannot describe.
type footprinter struct {
	regions []region
	rootPtr unsafe.Pointer
	root    []field // the root's state fields, if it has others (Footprint.root)
	ok      bool
}

// start begins a component whose root object is at root.
func (p *footprinter) start(root unsafe.Pointer) {
	p.regions, p.rootPtr, p.root, p.ok = p.regions[:0], root, nil, true
}

// add records n values of plan elem's type at start.
func (p *footprinter) add(start unsafe.Pointer, elem *plan, n int) {
	if size := elem.t.Size() * uintptr(n); p.ok && size > 0 {
		if len(p.regions) == 0 && start == p.rootPtr {
			p.root = elem.partial
		}
		p.regions = append(p.regions, region{start: start, typ: rtypeOf(elem.t), n: n, size: size})
	}
}

// fill makes f the footprint of what was collected, and reports whether there is one.
func (p *footprinter) fill(f *Footprint) bool {
	if !p.ok || len(p.regions) == 0 {
		f.Clear()
		return false
	}
	f.record(p.regions, p.root)
	clear(p.regions) // the footprint holds them now
	return true
}

// rtypeOf is the runtime's type behind t: the data word of the interface holding it.
func rtypeOf(t reflect.Type) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1] }

// The runtime's typed copies, with the write barriers the collector needs when the values hold
// pointers (and a plain copy when they do not). The runtime keeps these names for packages that
// link to them (see its comments on typedmemmove, reflect_typedslicecopy and
// reflect_unsafe_NewArray).
//
//go:linkname typedmemmove runtime.typedmemmove
func typedmemmove(typ, dst, src unsafe.Pointer)

//go:linkname typedslicecopy reflect.typedslicecopy
func typedslicecopy(elem unsafe.Pointer, dst, src sliceHeader) int

//go:linkname unsafe_NewArray reflect.unsafe_NewArray
func unsafe_NewArray(typ unsafe.Pointer, n int) unsafe.Pointer
