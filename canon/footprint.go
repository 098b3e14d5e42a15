package canon

import (
	"bytes"
	"unsafe"
)

// A Footprint is the memory a component's live value occupies, and what that memory held when the
// value was captured (Encoder.Footprint). While every byte is the
// same, the value is the same, and so are its canonical bytes: a checker need neither encode it
// again nor restore it. Why the comparison is enough: the regions are every object, backing array
// and root the value reaches, in the order they were reached, so each one's pointer lies in a
// region compared before it; strings, the only memory outside, never change. Values holding maps
// (whose memory is not flat), globals (whose contents lie elsewhere) or slices in array mode have
// no footprint.
type Footprint struct {
	regions []region
	saved   []byte
}

// region is memory an object owns. The pointer keeps the object alive, so a footprint never reads
// freed memory.
type region struct {
	start unsafe.Pointer
	size  uintptr
}

// Same reports whether the memory still holds what it held.
func (f *Footprint) Same() bool {
	off := uintptr(0)
	for _, r := range f.regions {
		if !bytes.Equal(unsafe.Slice((*byte)(r.start), r.size), f.saved[off:off+r.size]) {
			return false
		}
		off += r.size
	}
	return true
}

// record makes f the footprint of regions, saving their bytes now.
func (f *Footprint) record(regions []region) {
	f.regions = append(f.regions[:0], regions...)
	f.saved = f.saved[:0]
	for _, r := range regions {
		f.saved = append(f.saved, unsafe.Slice((*byte)(r.start), r.size)...)
	}
}

// Clear drops the footprint's references, so it does not keep old objects alive.
func (f *Footprint) Clear() {
	clear(f.regions)
	f.regions = f.regions[:0]
	f.saved = f.saved[:0]
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
	ok      bool
}

func (p *footprinter) start() { p.regions, p.ok = p.regions[:0], true }

func (p *footprinter) add(start unsafe.Pointer, size uintptr) {
	if p.ok && size > 0 {
		p.regions = append(p.regions, region{start, size})
	}
}

// fill makes f the footprint of what was collected, and reports whether there is one.
func (p *footprinter) fill(f *Footprint) bool {
	if !p.ok {
		f.Clear()
		return false
	}
	f.record(p.regions)
	clear(p.regions) // the footprint holds them now
	return true
}
