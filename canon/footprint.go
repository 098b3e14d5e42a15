package canon

import (
	"bytes"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// A Footprint is the memory a component's live value occupies, and a copy of what that memory held
// when the value was captured (Encoder.Footprint) or restored (Decoder.Footprint). While every byte
// is the same, the value is the same, and so are its canonical bytes: a checker need neither
// encode it again nor restore it. Why the comparison is enough: the regions are every object,
// backing array and root the value reaches, in the order they were reached, so each one's pointer
// lies in a region compared before it; strings, the only memory outside, never change. Slices in
// array mode have no footprint.
//
// Once a handler has changed the value, Restore writes the copy back: the value is again the one
// the footprint saw, without decoding. The copy is typed memory, written and read with the
// runtime's write barriers, so the collector sees every pointer it holds and the objects and
// strings the old value reached stay alive while the footprint does. A map's memory is not flat:
// its entries are copied out, and a restore empties the same map and puts them back (unless Same's
// test below finds it unchanged). Same looks each copied entry up in the map and compares the
// value's memory: with as many entries, the map holds what it held (the objects its values point
// to are regions, compared as any other). That needs keys that encode the same whenever they are
// == (plan.keysExact; a float's 0 and -0 do not). A value holding a map of other keys, or a pointer
// to a package-level variable (whose contents lie elsewhere), can be restored but never compares
// the same: a capture encodes it again.
type Footprint struct {
	regions []region
	shadows []shadow
	maps    []mapCopy
	flat    bool // no globals, and every map's keys exact: Same can answer
	// stamp tells this recording from every other in the process (0: none): the same stamp, the
	// same regions, however the Footprint was copied since (Encoder.Apart).
	stamp uint64
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

// mapCopy is a map of the value and its entries when the footprint was recorded.
type mapCopy struct {
	ptr        unsafe.Pointer // the map, when m is not made yet
	t          reflect.Type
	m          reflect.Value
	keys, vals reflect.Value // []K and []V, typed: the collector sees their pointers
	n          int
	// For Same: the map's runtime type and the map itself (m's), the sizes of a key and a value,
	// and whether its keys are exact (plan.keysExact), so that same can answer.
	typ, live    unsafe.Pointer
	kSize, vSize uintptr
	exact        bool
}

// Same reports whether the memory still holds what it held.
func (f *Footprint) Same() bool {
	if !f.flat {
		return false
	}
	for i, r := range f.regions {
		if !equal(r.start, f.shadows[i].ptr, r.size) {
			return false
		}
	}
	for i := range f.maps {
		if !f.maps[i].same() {
			return false
		}
	}
	return true
}

// same reports whether the map still holds the entries copied out: as many, and each key's value
// the same memory.
func (c *mapCopy) same() bool {
	if maplen(c.live) != c.n {
		return false
	}
	keys, vals := c.keys.UnsafePointer(), c.vals.UnsafePointer()
	for i := range uintptr(c.n) {
		v := mapaccess(c.typ, c.live, unsafe.Add(keys, i*c.kSize))
		if v == nil || !equal(v, unsafe.Add(vals, i*c.vSize), c.vSize) {
			return false
		}
	}
	return true
}

// equal reports whether the n bytes at a and b are the same; a few aligned words (a small root)
// are compared a word at a time, without a call.
func equal(a, b unsafe.Pointer, n uintptr) bool {
	if n > 32 || (n|uintptr(a)|uintptr(b))%8 != 0 {
		return bytes.Equal(unsafe.Slice((*byte)(a), n), unsafe.Slice((*byte)(b), n))
	}
	for i := uintptr(0); i < n; i += 8 {
		if *(*uint64)(unsafe.Add(a, i)) != *(*uint64)(unsafe.Add(b, i)) {
			return false
		}
	}
	return true
}

// Hash hashes the memory the footprint's regions cover as it is now, for finding, among values
// recorded before, one whose Same to check: equal memory, equal hashes. 0 when Same cannot answer
// (a global met) or the value holds maps, whose entries are not in a region.
func (f *Footprint) Hash() uint64 {
	if !f.flat || len(f.maps) > 0 || len(f.regions) == 0 {
		return 0
	}
	var h uint64
	for _, r := range f.regions {
		h = (h ^ xxhash.Sum64(unsafe.Slice((*byte)(r.start), r.size))) * 0x9e3779b97f4a7c15
	}
	return max(h, 1)
}

// Size is the bytes of memory the footprint covers (and holds a copy of); its maps' entries aside.
func (f *Footprint) Size() uintptr {
	var n uintptr
	for _, r := range f.regions {
		n += r.size
	}
	return n
}

// Alone reports whether the value is its root object alone: it points to nothing but strings, so
// Same compares the root's memory only.
func (f *Footprint) Alone() bool {
	return f.flat && len(f.regions) == 1 && len(f.maps) == 0 && f.root == nil
}

// Lead returns the first word of the value's memory as the footprint saw it and as it is now, for
// a value whose root is at least a word (0, 0 otherwise): telling apart a few footprints of one
// root (Alone) by one word each is cheaper than asking each whether it is the Same.
func (f *Footprint) Lead() (then, now uint64) {
	if len(f.regions) == 0 || f.regions[0].size < 8 || uintptr(f.regions[0].start)%8 != 0 {
		return 0, 0
	}
	return *(*uint64)(f.shadows[0].ptr), *(*uint64)(f.regions[0].start)
}

// Restore makes the memory hold again what it held when the footprint was recorded, and reports
// whether f is a footprint (a cleared one restores nothing).
func (f *Footprint) Restore() bool {
	if len(f.regions)+len(f.maps) == 0 {
		return false
	}
	// In a value of many regions most are as the handler found them, and comparing costs less
	// than a copy with the collector's write barriers; a value of a few, a handler mostly changed.
	compare := len(f.regions) >= compareRegions
	for i, r := range f.regions {
		src := f.shadows[i].ptr
		if i == 0 && f.root != nil {
			for _, fl := range f.root {
				typedmemmove(rtypeOf(fl.plan.t), unsafe.Add(r.start, fl.offset), unsafe.Add(src, fl.offset))
			}
			continue
		}
		if !compare || !equal(r.start, src, r.size) {
			typedslicecopy(r.typ, sliceHeader{r.start, r.n, r.n}, sliceHeader{src, r.n, r.n})
		}
	}
	for i := range f.maps {
		c := &f.maps[i]
		if c.exact && c.same() {
			continue
		}
		c.m.Clear()
		for i := range c.n {
			c.m.SetMapIndex(c.keys.Index(i), c.vals.Index(i))
		}
	}
	return true
}

// compareRegions is the fewest regions of a value for Restore to compare each with its copy
// before copying it back: etcd raft's nodes (33) gain, TwoPhase's resource managers (1) lose.
const compareRegions = 8

// record makes f the footprint of regions, copying their values now (the maps' entries with it).
// Shadows are kept from one recording to the next when a region's type and length fit.
func (f *Footprint) record(regions []region, maps []mapCopy, root []field, flat bool, it *mapIter) {
	f.regions = append(f.regions[:0], regions...)
	f.root, f.flat, f.stamp = root, flat, stamps.Add(1)
	f.recordMaps(maps, it)
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

// recordMaps copies out the entries of maps (m set, nothing else) with it, keeping the copies'
// slices from the last recording when they fit.
func (f *Footprint) recordMaps(maps []mapCopy, it *mapIter) {
	old := f.maps
	f.maps = f.maps[:0]
	for i, c := range maps {
		if !c.m.IsValid() {
			cell := reflect.New(c.t) // a map value of its own, not the encoder's scratch
			typedmemmove(rtypeOf(c.t), cell.UnsafePointer(), unsafe.Pointer(&c.ptr))
			c.m = cell.Elem()
		}
		c.ptr = nil
		kt, vt := c.m.Type().Key(), c.m.Type().Elem()
		if i < len(old) && old[i].keys.IsValid() && old[i].keys.Type().Elem() == kt && old[i].vals.Type().Elem() == vt {
			c.keys, c.vals = old[i].keys, old[i].vals
		}
		c.typ, c.live = rtypeOf(c.m.Type()), c.m.UnsafePointer()
		c.kSize, c.vSize = kt.Size(), vt.Size()
		n := maplen(c.live)
		if !c.keys.IsValid() || c.keys.Len() < n {
			c.keys = reflect.MakeSlice(reflect.SliceOf(kt), n, n)
			c.vals = reflect.MakeSlice(reflect.SliceOf(vt), n, n)
		}
		keys, vals, krt, vrt := c.keys.UnsafePointer(), c.vals.UnsafePointer(), rtypeOf(kt), rtypeOf(vt)
		c.n = 0
		for it.start(c.m); it.key != nil; it.next() {
			typedmemmove(krt, unsafe.Add(keys, uintptr(c.n)*c.kSize), it.key)
			typedmemmove(vrt, unsafe.Add(vals, uintptr(c.n)*c.vSize), it.elem)
			c.n++
		}
		it.done()
		f.maps = append(f.maps, c)
	}
	if len(old) > len(f.maps) {
		clear(old[len(f.maps):]) // copies no longer used
	}
}

// Clear drops the footprint's references, so it does not keep old objects alive.
func (f *Footprint) Clear() {
	clear(f.regions)
	f.regions = f.regions[:0]
	clear(f.shadows)
	f.shadows = f.shadows[:0]
	clear(f.maps)
	f.maps = f.maps[:0]
	f.root, f.flat, f.stamp = nil, false, 0
}

// stamps counts the footprints recorded in the process.
var stamps atomic.Uint64

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
	maps    []mapCopy
	rootPtr unsafe.Pointer
	root    []field // the root's state fields, if it has others (Footprint.root)
	ok      bool
	flat    bool    // no globals met, every map's keys exact
	iter    mapIter // to copy the maps' entries out (Footprint.recordMaps)
}

// start begins a component whose root object is at root.
func (p *footprinter) start(root unsafe.Pointer) {
	clear(p.maps)
	p.regions, p.maps, p.rootPtr, p.root, p.ok, p.flat = p.regions[:0], p.maps[:0], root, nil, true, true
}

// addMap records a map of plan mp the value holds, at ptr; m is the map, if the caller has it.
func (p *footprinter) addMap(ptr unsafe.Pointer, mp *plan, m reflect.Value) {
	p.flat = p.flat && mp.keysExact
	if p.ok {
		p.maps = append(p.maps, mapCopy{ptr: ptr, t: mp.t, m: m, exact: mp.keysExact})
	}
}

// global records that the value points to a package-level variable.
func (p *footprinter) global() { p.flat = false }

// add records n values of plan elem's type at start, when recording.
func (p *footprinter) add(start unsafe.Pointer, elem *plan, n int) {
	if p.ok {
		p.record(start, elem, n)
	}
}

func (p *footprinter) record(start unsafe.Pointer, elem *plan, n int) {
	if size := elem.t.Size() * uintptr(n); size > 0 {
		if len(p.regions) == 0 && start == p.rootPtr {
			p.root = elem.partial
		}
		p.regions = append(p.regions, region{start: start, typ: rtypeOf(elem.t), n: n, size: size})
	}
}

// fill makes f the footprint of what was collected, and reports whether there is one.
func (p *footprinter) fill(f *Footprint) bool {
	if !p.ok || len(p.regions)+len(p.maps) == 0 {
		f.Clear()
		return false
	}
	f.record(p.regions, p.maps, p.root, p.flat, &p.iter)
	clear(p.regions) // the footprint holds them now
	clear(p.maps)
	return true
}

// drop forgets what was collected, so that it keeps no object alive.
func (p *footprinter) drop() {
	clear(p.regions)
	clear(p.maps)
	p.regions, p.maps, p.root, p.ok = p.regions[:0], p.maps[:0], nil, false
}

// The runtime's typed copies, with the write barriers the collector needs when the values hold
// pointers (and a plain copy when they do not), and its map lookup. The runtime keeps these names
// for packages that link to them (see its comments on typedmemmove, reflect_typedslicecopy,
// reflect_unsafe_NewArray and reflect_mapaccess).
//
//go:linkname typedmemmove runtime.typedmemmove
func typedmemmove(typ, dst, src unsafe.Pointer)

//go:linkname typedslicecopy reflect.typedslicecopy
func typedslicecopy(elem unsafe.Pointer, dst, src sliceHeader) int

//go:linkname unsafe_NewArray reflect.unsafe_NewArray
func unsafe_NewArray(typ unsafe.Pointer, n int) unsafe.Pointer

// mapaccess returns a pointer to the value of the key at key in map m of runtime type typ, or nil
// when m has no such key.
//
//go:linkname mapaccess reflect.mapaccess
func mapaccess(typ, m, key unsafe.Pointer) unsafe.Pointer
