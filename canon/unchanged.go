package canon

// Components a capture may find unchanged. A checker asks for the footprint of a component it
// has just seen emitted (Encoder.Footprint), and later hands it back as Root.Unchanged, or asks
// only whether the footprints of a capture's components share nothing (Encoder.Apart); a
// footprint recorded of a component the capture then encodes again in array mode is cleared
// (EncodeComponents).

// Footprint makes f the footprint of the component last handed to EncodeComponents' emit, and
// reports whether it has one that Same can answer for (no global, no map keyed by floats or
// interfaces). If not, f is left as it was: a checker keeps the footprint its decoder gave, which
// still restores the value. If the capture then finds the component's slices sharing an array
// and emits it again in array mode, EncodeComponents clears f.
func (enc *Encoder) Footprint(f *Footprint) bool {
	p := enc.e.footprint()
	if p == nil {
		return false
	}
	if !p.flat {
		p.drop()
		return false
	}
	if !p.fill(f) {
		return false
	}
	enc.e.recorded = append(enc.e.recorded, recording{f: f, comp: enc.e.comp})
	return true
}

// A recording is a footprint Encoder.Footprint recorded during a capture, of component comp.
type recording struct {
	f    *Footprint
	comp int
}

// footprint walks the component last handed to emit again, recording its memory, and returns
// what it recorded (nil: no footprint). A capture records none itself: a checker asks for the
// footprint of the few components a transition left as they were, and recording one for every
// component would cost each capture more than the walks again cost.
func (e *encoder) footprint() *footprinter {
	r := e.emitted
	if !r.V.IsValid() {
		return nil
	}
	if e.recorder == nil {
		e.recorder = &Encoder{}
	}
	c := &e.recorder.e
	c.reset(false)
	c.buf = c.buf[:0]
	ptr := r.V.UnsafePointer()
	c.fp.start(ptr)
	if err := c.run(r.V, ptr, r.Name); err != nil {
		c.fp.drop()
		return nil
	}
	return &c.fp
}

// Apart reports whether the memories of footprints fps (a capture's components, each Unchanged,
// in order) share nothing, which is all a capture of them has to find: most transitions leave the
// components they touch as they were, or as they were a few captures ago (a machine's kept
// values). Nothing is walked, so no model code runs and no global is met (MetGlobals is false
// after it). False when a footprint is nil, or when they share memory: EncodeComponents, given
// them as Unchanged roots, then says where.
func (enc *Encoder) Apart(fps []*Footprint) bool {
	e := &enc.e
	var key apartKey
	for i, f := range fps {
		if f == nil {
			return false
		}
		if i < len(key) {
			key[i] = f.stamp
		}
		if f.stamp == 0 {
			key[0] = 0 // never recorded: not remembered
		}
	}
	e.tracking = false
	if len(e.globalKeys) > 0 {
		clear(e.globalKeys)
	}
	remember := len(fps) <= len(key) && key[0] != 0
	slot := &e.apart[key.slot()]
	if remember && *slot == key {
		return true
	}
	e.spans = e.spans[:0]
	for i, f := range fps {
		e.comp = i
		f.spans(e)
	}
	if len(e.spans) > 1 && overlaps(e.spans, len(fps), nil, &e.spanSort) != nil {
		return false
	}
	if remember {
		*slot = key
	}
	return true
}

// An apartKey is the stamps of the footprints of up to four roots, in order, found to share
// nothing: the same footprints share nothing again, whichever Footprint values hold them now.
type apartKey [4]uint64

// slot is where an encoder's apart table keeps k.
func (k *apartKey) slot() uint64 {
	return (k[0]*0x9e3779b97f4a7c15 ^ k[1]*0xc2b2ae3d27d4eb4f ^ k[2]*0x165667b19e3779f9 ^ k[3]) >> 58
}
