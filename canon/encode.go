package canon

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// Version is the canonical format's version. It is mixed into every hash, so hashes stored by an
// older format never match a newer one. Bump it whenever the bytes for any value change.
const Version byte = 2

// An Error says which value could not be captured, where and why.
type Error struct {
	Path   string // e.g. B.peers["b"].conn
	Reason string
}

func (e *Error) Error() string { return e.Path + ": " + e.Reason }

// An Encoder turns the state reachable from a root pointer into canonical bytes. It keeps its
// buffers between calls; it is not safe for concurrent use.
type Encoder struct {
	e encoder
}

type encoder struct {
	buf     []byte
	seen    map[uintptr]int // object address -> number (1-based)
	types   []reflect.Type  // object number-1 -> objectType, to catch type-punned interior pointers
	queue   []object        // objects numbered but not yet encoded, in number order
	spans   []span          // memory each object occupies, to catch interior pointers
	scratch [][]byte        // free buffers for map keys and set elements
	parts   [][]part        // free lists of encoded keys and elements, to sort them

	// Map entries are copied into reused slices, so iterating a map allocates nothing.
	iter      reflect.MapIter
	mapHeader unsafe.Pointer // the map being encoded, as a reflect.Value reads it
	mapSlots  map[*plan]*mapSlots

	tracking bool     // record the path, to say where an error happened
	path     []string // path segments while tracking
	qpaths   []string // path of each queued object while tracking
	inKey    bool     // encoding a map key or set element: no objects allowed
}

// An object is a pointee or a map. The pointer is kept, not a reflect.Value that may read it from
// memory the encoder reuses.
type object struct {
	ptr   unsafe.Pointer
	plan  *plan // of the pointee, or of the map
	isMap bool
}

type span struct{ start, end uintptr }

// encodeFailure carries an Error up through the plan closures.
type encodeFailure struct{ reason string }

// Encode appends the canonical encoding of everything reachable from root, which must be a
// non-nil pointer, to dst.
func (enc *Encoder) Encode(dst []byte, root any) ([]byte, error) {
	return enc.EncodeValue(dst, reflect.ValueOf(root), "")
}

// EncodeValue is Encode for a reflect.Value; name prefixes paths in errors (a process name).
func (enc *Encoder) EncodeValue(dst []byte, root reflect.Value, name string) (out []byte, err error) {
	if !root.IsValid() {
		return dst, &Error{Path: name, Reason: "state root must be a non-nil pointer, not nil"}
	}
	if root.Kind() != reflect.Pointer || root.IsNil() {
		return dst, &Error{Path: name, Reason: fmt.Sprintf("state root must be a non-nil pointer, not %s", root.Type())}
	}
	e := &enc.e
	e.buf = dst
	if err := e.run(root, false); err != nil {
		// Run again, slowly, recording paths, to say exactly where.
		e.buf = dst
		err = e.run(root, true)
		if err == nil { // cannot happen: encoding is deterministic
			err = &Error{Reason: "state could not be captured"}
		}
		if ce, ok := err.(*Error); ok && name != "" {
			ce.Path = name + ce.Path
		}
		e.buf = nil
		return dst, err
	}
	out, e.buf = e.buf, nil
	return out, nil
}

// Hash is the hash of canonical bytes that the visited set stores. It mixes Version in, so hashes
// stored by another format never match.
func Hash(b []byte) uint64 {
	var d xxhash.Digest
	d.Reset()
	d.Write([]byte{Version})
	d.Write(b)
	return d.Sum64()
}

func (e *encoder) run(root reflect.Value, tracking bool) (err error) {
	if e.seen == nil {
		e.seen = make(map[uintptr]int)
		e.mapSlots = make(map[*plan]*mapSlots)
	}
	clear(e.seen)
	e.types = e.types[:0]
	e.queue = e.queue[:0]
	e.spans = e.spans[:0]
	e.path = e.path[:0]
	e.qpaths = e.qpaths[:0]
	e.tracking = tracking
	e.inKey = false
	defer func() {
		clear(e.queue) // do not keep the state alive through the encoder
		if r := recover(); r != nil {
			f, ok := r.(encodeFailure)
			if !ok {
				panic(r)
			}
			err = &Error{Path: strings.Join(e.path, ""), Reason: f.reason}
			e.iter.Reset(reflect.Value{})
			e.mapHeader = nil
			clear(e.mapSlots)
		}
	}()
	t := root.Type()
	e.addObject(objectType(t), root.UnsafePointer(), planFor(t.Elem()), t.Elem().Size() == 0, false)
	for i := 0; i < len(e.queue); i++ {
		o := e.queue[i]
		if tracking {
			e.path = append(e.path[:0], e.qpaths[i])
		}
		if o.isMap {
			e.mapContent(o)
		} else {
			o.plan.enc(e, reflect.NewAt(o.plan.t, o.ptr).Elem())
		}
	}
	if !tracking && len(e.spans) > 1 && overlap(e.spans) {
		return &Error{Reason: "interior pointer"}
	}
	return nil
}

func (e *encoder) fail(format string, args ...any) {
	panic(encodeFailure{fmt.Sprintf(format, args...)})
}

func (e *encoder) push(seg string) { e.path = append(e.path, seg) }
func (e *encoder) pop()            { e.path = e.path[:len(e.path)-1] }

// ref appends the number of the object at ptr (a non-nil pointer or a map, of objectType t),
// numbering it on first sight, and reports whether it was new. Pointers to zero-size values are
// new objects every time: they never alias.
func (e *encoder) ref(t reflect.Type, ptr unsafe.Pointer, target *plan, zeroSize, isMap bool) (fresh bool) {
	if e.inKey {
		e.fail("%s inside a map key or set element cannot be captured canonically; key maps by value (an id or name), not by pointer", t)
	}
	if !zeroSize {
		if n, ok := e.seen[uintptr(ptr)]; ok {
			if e.types[n-1] != t {
				e.fail("%s points where a %s already is: pointers into the middle of another object cannot be captured; point to the whole object, or use an index", t, e.types[n-1])
			}
			e.uvarint(uint64(n))
			return false
		}
	}
	e.uvarint(uint64(e.addObject(t, ptr, target, zeroSize, isMap)))
	return true
}

// objectType is the type by which an object is known, the same for every pointer or map type
// that may refer to it: a named map type and map[K]V alias the same map, a named pointer type
// and *T the same pointee.
func objectType(t reflect.Type) reflect.Type {
	if t.Name() == "" {
		return t
	}
	if t.Kind() == reflect.Map {
		return reflect.MapOf(t.Key(), t.Elem())
	}
	return reflect.PointerTo(t.Elem())
}

func (e *encoder) addObject(t reflect.Type, ptr unsafe.Pointer, target *plan, zeroSize, isMap bool) int {
	n := len(e.types) + 1
	e.types = append(e.types, t)
	e.queue = append(e.queue, object{ptr: ptr, plan: target, isMap: isMap})
	if e.tracking {
		e.qpaths = append(e.qpaths, strings.Join(e.path, ""))
	}
	if !zeroSize {
		e.seen[uintptr(ptr)] = n
		if !isMap {
			e.addSpan(uintptr(ptr), t.Elem().Size())
		}
	}
	return n
}

// addSpan records memory an object owns. While tracking, an overlap fails at once, so the error
// names the second path that reached the memory.
func (e *encoder) addSpan(start, size uintptr) {
	s := span{start: start, end: start + size}
	if e.tracking {
		for _, o := range e.spans {
			if s.start < o.end && o.start < s.end {
				e.fail("this value overlaps memory of another captured object (a pointer into the middle of a struct or array, or two slices sharing a backing array): canonical bytes cannot restore such sharing; copy the value, or refer to it by index")
			}
		}
	}
	e.spans = append(e.spans, s)
}

// overlap reports whether any two spans overlap, by sorting them.
func overlap(spans []span) bool {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return true
		}
	}
	return false
}

func (e *encoder) uvarint(x uint64) { e.buf = binary.AppendUvarint(e.buf, x) }

func encBool(e *encoder, v reflect.Value) {
	if v.Bool() {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

func encInt(e *encoder, v reflect.Value)  { e.varint(v.Int()) }
func encUint(e *encoder, v reflect.Value) { e.uvarint(v.Uint()) }

// canonicalNaN is the one NaN every NaN encodes as.
var canonicalNaN = math.Float64bits(math.NaN())

func floatBits(f float64) uint64 {
	if f != f {
		return canonicalNaN
	}
	return math.Float64bits(f)
}

func encFloat(e *encoder, v reflect.Value) { e.float(v.Float()) }

func encComplex(e *encoder, v reflect.Value) {
	c := v.Complex()
	e.float(real(c))
	e.float(imag(c))
}

func encString(e *encoder, v reflect.Value) {
	s := v.String()
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// encMutex accepts only a mutex nobody holds: between transitions every lock must be released,
// and then the mutex is all zeros, so it adds nothing to the state.
func encMutex(e *encoder, v reflect.Value) {
	if !v.IsZero() {
		e.fail("%s is locked or in use between transitions: a transition must release every lock it takes", v.Type())
	}
}

func buildArray(p *plan) {
	elem := planLocked(p.t.Elem())
	n := p.t.Len()
	p.min = mulMin(elem.min, uint64(n))
	if p.t.Elem().Kind() == reflect.Uint8 { // raw bytes, not varints
		p.fastEnc = func(e *encoder, ptr unsafe.Pointer) {
			e.buf = append(e.buf, unsafe.Slice((*byte)(ptr), n)...)
		}
		p.fastDec = func(d *decoder, ptr unsafe.Pointer) {
			copy(unsafe.Slice((*byte)(ptr), n), d.take(uint64(n)))
		}
	} else if elem.fastEnc != nil {
		p.fastEnc, p.fastDec = arrayFast(n, p.t.Elem().Size(), elem.fastEnc, elem.fastDec)
	}
	p.enc = func(e *encoder, v reflect.Value) {
		if ptr, ok := addr(v); ok && p.fastEnc != nil {
			p.fastEnc(e, ptr)
			return
		}
		for i := range n {
			if e.tracking {
				e.push(indexSeg(i))
			}
			if p.t.Elem().Kind() == reflect.Uint8 {
				e.buf = append(e.buf, byte(v.Index(i).Uint()))
			} else {
				elem.enc(e, v.Index(i))
			}
			if e.tracking {
				e.pop()
			}
		}
	}
	p.dec = func(d *decoder, v reflect.Value) {
		if ptr, ok := addr(v); ok && p.fastDec != nil {
			p.fastDec(d, ptr)
			return
		}
		for i := range n {
			elem.dec(d, v.Index(i))
		}
	}
}

// buildSlice builds the plan of a slice; set makes it a multiset (order ignored).
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
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return
		}
		n := v.Len()
		e.uvarint(uint64(n) + 1)
		base := v.UnsafePointer()
		if n > 0 && size > 0 {
			e.addSpan(uintptr(base), uintptr(n)*size)
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
		n := d.uvarint()
		v.SetZero() // never reuse a backing array the old value may share
		if n == 0 {
			return
		}
		n--
		d.checkCount(n, elem.min, size)
		if byteSlice {
			b := make([]byte, n)
			copy(b, d.take(n))
			v.SetBytes(b)
			return
		}
		if n == 0 {
			v.Set(reflect.MakeSlice(t, 0, 0)) // empty, not nil
			return
		}
		// Grow and SetLen write the new slice in place: no reflect.Value header to allocate.
		v.Grow(int(n))
		v.SetLen(int(n))
		switch {
		case size == 0:
			// nothing to fill
		case elem.fastDec != nil:
			base := v.UnsafePointer()
			for i := range int(n) {
				elem.fastDec(d, unsafe.Add(base, uintptr(i)*size))
			}
		default:
			for i := range int(n) {
				elem.dec(d, v.Index(i))
			}
		}
	}
}

func buildPointer(p *plan) {
	t := p.t
	elem := planLocked(t.Elem())
	zeroSize := t.Elem().Size() == 0
	id := objectType(t)
	p.min = 1
	p.enc = func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return
		}
		e.ref(id, v.UnsafePointer(), elem, zeroSize, false)
	}
	p.dec = func(d *decoder, v reflect.Value) { v.Set(d.objectRef(t, elem)) }
}

func encInterface(e *encoder, v reflect.Value) {
	if v.IsNil() {
		e.buf = append(e.buf, 0)
		return
	}
	c := v.Elem()
	p := planFor(c.Type())
	if e.tracking {
		e.push(".(" + c.Type().String() + ")")
	}
	e.registerType(p)
	e.uvarint(uint64(len(p.name)) + 1)
	e.buf = append(e.buf, p.name...)
	p.enc(e, c)
	if e.tracking {
		e.pop()
	}
}

// encodeInline appends the encoding of v alone, as a map key or set element: it may reach no
// objects. The graph orders keys and elements by it, as the encoder does.
func (enc *Encoder) encodeInline(dst []byte, v reflect.Value) (out []byte, err error) {
	e := &enc.e
	e.buf, e.tracking, e.inKey = dst, false, true
	e.spans = e.spans[:0]
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(encodeFailure)
			if !ok {
				panic(r)
			}
			out, err = dst, &Error{Reason: f.reason}
		}
		e.inKey = false
	}()
	planFor(v.Type()).enc(e, v)
	out, e.buf = e.buf, nil
	return out, nil
}
