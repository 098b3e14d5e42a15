package canon

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"unsafe"
)

// Version is the canonical format's version. It is mixed into every hash, so hashes stored by an
// older format never match a newer one. Bump it whenever the bytes for any value change.
const Version byte = 1

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
	types   []reflect.Type  // object number-1 -> type, to catch type-punned interior pointers
	queue   []object        // objects numbered but not yet encoded, in number order
	spans   []span          // memory each object occupies, to catch interior pointers
	scratch [][]byte        // per-depth buffers for map keys and set elements

	tracking bool     // record the path, to say where an error happened
	path     []string // path segments while tracking
	qpaths   []string // path of each queued object while tracking
	inKey    bool     // encoding a map key or set element: no objects allowed
}

type object struct {
	v    reflect.Value // pointer or map
	plan *plan         // plan of the pointee or of the map
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
		return dst, err
	}
	return e.buf, nil
}

func (e *encoder) run(root reflect.Value, tracking bool) (err error) {
	if e.seen == nil {
		e.seen = make(map[uintptr]int)
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
		if r := recover(); r != nil {
			f, ok := r.(encodeFailure)
			if !ok {
				panic(r)
			}
			err = &Error{Path: strings.Join(e.path, ""), Reason: f.reason}
		}
	}()
	e.addObject(root, planFor(root.Type().Elem()))
	for i := 0; i < len(e.queue); i++ {
		o := e.queue[i]
		if tracking {
			e.path = append(e.path[:0], e.qpaths[i])
		}
		if o.v.Kind() == reflect.Map {
			e.mapContent(o.v, o.plan)
		} else {
			o.plan.enc(e, o.v.Elem())
		}
	}
	if len(e.spans) > 1 {
		if overlap(e.spans) && !tracking {
			return &Error{Reason: "interior pointer"}
		}
	}
	return nil
}

func (e *encoder) fail(format string, args ...any) {
	panic(encodeFailure{fmt.Sprintf(format, args...)})
}

func (e *encoder) push(seg string) { e.path = append(e.path, seg) }
func (e *encoder) pop()            { e.path = e.path[:len(e.path)-1] }

// ref appends the number of the object at v (a non-nil pointer or map), numbering it on first sight.
func (e *encoder) ref(v reflect.Value, p *plan) {
	if e.inKey {
		e.fail("%s inside a map key or set element cannot be captured canonically; key maps by value (an id or name), not by pointer", v.Type())
	}
	if v.Kind() == reflect.Pointer && v.Type().Elem().Size() == 0 {
		// Zero-size values share addresses arbitrarily; they never alias.
		e.addObject(v, p)
		return
	}
	addr := v.Pointer()
	if n, ok := e.seen[addr]; ok {
		if e.types[n-1] != v.Type() {
			e.fail("%s points where a %s already is: pointers into the middle of another object cannot be captured; point to the whole object, or use an index", v.Type(), e.types[n-1])
		}
		e.uvarint(uint64(n))
		return
	}
	e.uvarint(uint64(e.addObject(v, p)))
}

func (e *encoder) addObject(v reflect.Value, p *plan) int {
	n := len(e.types) + 1
	e.types = append(e.types, v.Type())
	e.queue = append(e.queue, object{v: v, plan: p})
	if v.Kind() == reflect.Pointer {
		if size := v.Type().Elem().Size(); size > 0 {
			e.seen[v.Pointer()] = n
			e.addSpan(v.Pointer(), size)
		}
	} else {
		e.seen[v.Pointer()] = n
	}
	if e.tracking {
		e.qpaths = append(e.qpaths, strings.Join(e.path, ""))
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
	slices.SortFunc(spans, func(a, b span) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
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

func encInt(e *encoder, v reflect.Value)  { e.buf = binary.AppendVarint(e.buf, v.Int()) }
func encUint(e *encoder, v reflect.Value) { e.buf = binary.AppendUvarint(e.buf, v.Uint()) }

// canonicalNaN is the one NaN every NaN encodes as.
var canonicalNaN = math.Float64bits(math.NaN())

func floatBits(f float64) uint64 {
	if f != f {
		return canonicalNaN
	}
	return math.Float64bits(f)
}

func encFloat(e *encoder, v reflect.Value) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, floatBits(v.Float()))
}

func encComplex(e *encoder, v reflect.Value) {
	c := v.Complex()
	e.buf = binary.LittleEndian.AppendUint64(e.buf, floatBits(real(c)))
	e.buf = binary.LittleEndian.AppendUint64(e.buf, floatBits(imag(c)))
}

func encString(e *encoder, v reflect.Value) {
	s := v.String()
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func encMutex(e *encoder, v reflect.Value) {
	if !v.CanAddr() {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(v.UnsafeAddr())), v.Type().Size())
	for _, x := range b {
		if x != 0 {
			e.fail("%s is locked or in use between transitions: a transition must release every lock it takes", v.Type())
		}
	}
}

func buildArray(p *plan) {
	elem := planFor(p.t.Elem())
	n := p.t.Len()
	p.hasRef = typeMayRef(p.t.Elem())
	if p.t.Elem().Kind() == reflect.Uint8 {
		p.enc = func(e *encoder, v reflect.Value) {
			for i := range n {
				e.buf = append(e.buf, byte(v.Index(i).Uint()))
			}
		}
		p.dec = func(d *decoder, v reflect.Value) {
			for i := range n {
				v.Index(i).SetUint(uint64(d.byte()))
			}
		}
		return
	}
	p.enc = func(e *encoder, v reflect.Value) {
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
	p.dec = func(d *decoder, v reflect.Value) {
		for i := range n {
			elem.dec(d, v.Index(i))
		}
	}
}

// buildSlice builds the plan of a slice; set makes it a multiset (order ignored).
func buildSlice(p *plan, set bool) {
	elem := planFor(p.t.Elem())
	p.hasRef = typeMayRef(p.t.Elem())
	size := p.t.Elem().Size()
	if set && p.hasRef {
		msg := fmt.Sprintf(`cmc:"set" needs an element type without pointers, maps or interfaces, not %s`, p.t.Elem())
		p.enc = func(e *encoder, v reflect.Value) { e.fail("%s", msg) }
		return
	}
	p.enc = func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.uvarint(0)
			return
		}
		n := v.Len()
		e.uvarint(uint64(n) + 1)
		if n > 0 && size > 0 {
			e.addSpan(v.Pointer(), uintptr(n)*size)
		}
		if set {
			e.setContent(v, elem)
			return
		}
		if p.t.Elem().Kind() == reflect.Uint8 && !e.tracking {
			e.buf = append(e.buf, v.Bytes()...)
			return
		}
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
	p.dec = func(d *decoder, v reflect.Value) {
		n := d.uvarint()
		if n == 0 {
			v.SetZero()
			return
		}
		n--
		d.check(n)
		s := reflect.MakeSlice(p.t, int(n), int(n))
		for i := range int(n) {
			elem.dec(d, s.Index(i))
		}
		v.Set(s)
	}
}

// setContent encodes the elements of a multiset sorted by their own encodings.
func (e *encoder) setContent(v reflect.Value, elem *plan) {
	n := v.Len()
	var parts [][]byte
	all := e.takeScratch()
	saved := e.buf
	wasKey := e.inKey
	e.inKey = true
	for i := range n {
		e.buf = all
		if e.tracking {
			e.push(indexSeg(i))
		}
		elem.enc(e, v.Index(i))
		if e.tracking {
			e.pop()
		}
		parts = append(parts, e.buf[len(all):])
		all = e.buf
	}
	e.inKey = wasKey
	slices.SortFunc(parts, bytes.Compare)
	e.buf = saved
	for _, p := range parts {
		e.buf = append(e.buf, p...)
	}
	e.giveScratch(all)
}

func (e *encoder) takeScratch() []byte {
	if n := len(e.scratch); n > 0 {
		b := e.scratch[n-1]
		e.scratch = e.scratch[:n-1]
		return b[:0]
	}
	return nil
}

func (e *encoder) giveScratch(b []byte) { e.scratch = append(e.scratch, b) }

func encPointer(e *encoder, v reflect.Value) {
	if v.IsNil() {
		e.uvarint(0)
		return
	}
	e.ref(v, planFor(v.Type().Elem()))
}

func encMapRef(e *encoder, v reflect.Value) {
	if v.IsNil() {
		e.uvarint(0)
		return
	}
	e.ref(v, planFor(v.Type()))
}

// mapContent encodes a map's entries in the order of their keys' canonical encodings.
func (e *encoder) mapContent(m reflect.Value, p *plan) {
	kp, vp := planFor(p.t.Key()), planFor(p.t.Elem())
	n := m.Len()
	e.uvarint(uint64(n))
	if n == 0 {
		return
	}
	type entry struct {
		key []byte
		k   reflect.Value
		v   reflect.Value
	}
	entries := make([]entry, 0, n)
	all := e.takeScratch()
	saved := e.buf
	wasKey := e.inKey
	e.inKey = true
	it := m.MapRange()
	for it.Next() {
		k := it.Key()
		e.buf = all
		if e.tracking {
			e.push(keySeg(k))
		}
		kp.enc(e, k)
		if e.tracking {
			e.pop()
		}
		entries = append(entries, entry{key: e.buf[len(all):], k: k, v: it.Value()})
		all = e.buf
	}
	e.inKey = wasKey
	e.buf = saved
	slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
	for i := range entries {
		if i > 0 && bytes.Equal(entries[i].key, entries[i-1].key) {
			if e.tracking {
				e.push(keySeg(entries[i].k))
			}
			e.fail("two keys of this map encode the same (NaN keys?); such a map cannot be captured canonically")
		}
		e.buf = append(e.buf, entries[i].key...)
		if e.tracking {
			e.push(keySeg(entries[i].k))
		}
		vp.enc(e, entries[i].v)
		if e.tracking {
			e.pop()
		}
	}
	e.giveScratch(all)
}

func encInterface(e *encoder, v reflect.Value) {
	if v.IsNil() {
		e.uvarint(0)
		return
	}
	c := v.Elem()
	p := planFor(c.Type())
	registerType(p)
	e.uvarint(uint64(len(p.name)) + 1)
	e.buf = append(e.buf, p.name...)
	if e.tracking {
		e.push(".(" + c.Type().String() + ")")
	}
	p.enc(e, c)
	if e.tracking {
		e.pop()
	}
}
