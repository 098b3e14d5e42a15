package canon

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/cmc-go/cmc/internal/faults"
)

// Version is the canonical format's version. It is mixed into every hash, so hashes stored by an
// older format never match a newer one. Bump it whenever the bytes for any value change.
const Version byte = 3

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
	buf      []byte
	seen     seenTable      // object address -> number (1-based)
	types    []reflect.Type // object number-1 -> objectType, to catch type-punned interior pointers
	queue    []object       // objects numbered but not yet encoded, in number order
	spans    []span         // memory each object occupies, to catch interior pointers
	spanSort []span         // room for sorting spans (sortSpans)
	// apart holds footprints found to share nothing (Apart), by apartKey.slot.
	apart    [64]apartKey
	base     int       // objects of earlier components in this capture
	scratch  [][]byte  // free buffers for map keys and set elements
	parts    [][]part  // free lists of encoded keys and elements, to sort them
	setMemos []setMemo // the last set of each of a few types written (setmemo.go)

	iter      mapIter          // the map being encoded
	mapHeader unsafe.Pointer   // the map, as a reflect.Value reads it
	entries   []unsafe.Pointer // its entries' keys and values, in the map's order

	tracking   bool     // record the path, to say where an error happened
	path       []string // path segments while tracking
	qpaths     []string // path of each object of the capture while tracking
	spanPaths  []string // path of each span while tracking
	inKey      bool     // encoding a map key or set element: no objects allowed
	glob       *globalTable
	globalKeys map[uintptr]string // keys of the globals met in this capture
	sub        *Encoder           // encodes a global's contents, for its key
	depth      int                // of a sub-encoder
	comp       int                // the component being encoded
	name       string             // its root's name, which an error names when not tracking
	arrayMode  bool               // array mode (arrays.go) for this component
	collect    bool               // record every slice's window (arrays.go)
	windows    []window           // every slice's window, in collect mode
	arrays     []window           // the backing arrays, in array mode, sorted by address
	collector  *Encoder           // finds a component's windows
	sortSets   bool               // put the live elements of every set in canonical order (SortSets)
	plans      planCache
	funcs      []funcSeen  // the functions met so far (funcs.go)
	fp         footprinter // the memory of the component being walked, in a recorder only (Footprint)
	emitted    Root        // the component last handed to emit, if it may have a footprint
	recorded   []recording // the footprints recorded of this capture's components (EncodeComponents)
	recorder   *Encoder    // walks the emitted component again to record its footprint
	asDecoded  bool        // the component so far is what decoding its bytes gives (AsDecoded)
	rootStart  uintptr     // the memory of the component's root object, which Decode
	rootEnd    uintptr     // fills in place (its cmc:"-" fields keep their values)
}

// An object is a pointee or a map. The pointer is kept, not a reflect.Value that may read it from
// memory the encoder reuses.
type object struct {
	ptr   unsafe.Pointer
	plan  *plan // of the pointee, or of the map
	isMap bool
	arr   *window // a backing array (arrays.go)
}

// encodeFailure carries an Error up through the plan closures.
type encodeFailure struct{ reason string }

// Encode appends the canonical encoding of everything reachable from root, which must be a
// non-nil pointer, to dst.
func (enc *Encoder) Encode(dst []byte, root any) ([]byte, error) {
	return enc.EncodeValue(dst, reflect.ValueOf(root), "")
}

// EncodeValue is Encode for a reflect.Value; name prefixes paths in errors (a process name).
func (enc *Encoder) EncodeValue(dst []byte, root reflect.Value, name string) (out []byte, err error) {
	err = enc.EncodeComponents([]Root{{Name: name, V: root}}, func(_ int, b []byte) { out = b }, dst)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// EncodeComponents encodes each root on its own, numbering its objects from 1, and hands each
// encoding to emit (appended to dst, valid until the next call). The roots must share nothing:
// components are restored one by one, so an object or a backing array reachable from two of them
// would come back as two, and writes through one would no longer be seen through the other. Such
// sharing is an Error naming both paths.
func (enc *Encoder) EncodeComponents(roots []Root, emit func(i int, b []byte), dst []byte) error {
	e := &enc.e
	e.recorded = e.recorded[:0]
	var arrays sharedInside
	err := e.components(roots, emit, dst, false, nil)
	if sh, ok := err.(sharedInside); ok {
		arrays = sh
		// Slices share memory inside some components: encode those in array mode. A footprint
		// recorded of one of them as emitted in plain mode describes memory that is not what its
		// bytes restore (two slices found one array), so it is cleared: it must never stand for
		// those bytes, nor take part in a sharing check as a component of its own.
		for _, r := range e.recorded {
			if sh[r.comp] {
				r.f.Clear()
			}
		}
		err = e.components(roots, emit, dst, false, sh)
	}
	clear(e.recorded)
	if err != nil {
		// Run again, slowly, recording paths, to say exactly where; in array mode where the first
		// run found sharing inside, or the sharing, allowed there, would be reported in place of
		// what the array-mode run failed on.
		err = e.components(roots, nil, dst, true, arrays)
		if _, ok := err.(sharedInside); ok || err == nil { // cannot happen: encoding is deterministic
			err = &Error{Reason: "state could not be captured"}
		}
		e.buf = nil
		return err
	}
	e.buf = nil
	return nil
}

// AsDecoded reports whether the component last handed to EncodeComponents' emit is, as far as the
// program can tell, the value that decoding its bytes gives: its sets are in canonical order,
// no object outside the root holds a field that is not state (cmc:"-", Model.Omit), spare
// capacity (a set's room too) holds only zeros, no float is a NaN, and the component is not in
// array mode. A machine may then keep the live value in place of restoring equal bytes.
func (enc *Encoder) AsDecoded() bool { return enc.e.asDecoded }

// MetGlobals reports whether the last capture met a package-level variable (globals.go): such a
// value is restored as the very same object in every instance of a model in the process, so a
// search must not run two instances at once.
func (enc *Encoder) MetGlobals() bool { return len(enc.e.globalKeys) > 0 }

func (e *encoder) components(roots []Root, emit func(int, []byte), dst []byte, tracking bool, arrays sharedInside) (err error) {
	defer e.catch(&err) // once a capture, not once a component: recover costs
	e.reset(tracking)
	for i := range roots {
		r := &roots[i] // not a copy: a Root is six words
		if !r.V.IsValid() {
			return &Error{Path: r.Name, Reason: "state root must be a non-nil pointer, not nil"}
		}
		if r.V.Kind() != reflect.Pointer || r.V.IsNil() { // IsNil is inlined, UnsafePointer is not
			return &Error{Path: r.Name, Reason: fmt.Sprintf("state root must be a non-nil pointer, not %s", r.V.Type())}
		}
		e.comp = i
		if r.Unchanged != nil && !tracking {
			r.Unchanged.spans(e)
			continue
		}
		e.buf = append(dst, plainMode)
		e.asDecoded = true
		e.emitted = *r
		if i < len(arrays) && arrays[i] {
			e.asDecoded = false // array elements no slice sees are not restored
			e.emitted = Root{}  // a footprint cannot describe array mode
			if err := e.findWindows(*r); err != nil {
				return err
			}
			e.buf[len(e.buf)-1] = arrayMode
			e.arrayMode = true
		}
		e.walk(r.V, r.V.UnsafePointer(), r.Name)
		e.arrayMode = false
		if emit != nil {
			emit(i, e.buf)
		}
	}
	if !tracking && len(e.spans) > 1 {
		return overlaps(e.spans, len(roots), arrays, &e.spanSort)
	}
	return nil
}

// findWindows finds the backing arrays of root's slices with a plain encoding.
func (e *encoder) findWindows(r Root) error {
	if e.collector == nil {
		e.collector = &Encoder{}
	}
	c := &e.collector.e
	c.windows = c.windows[:0]
	c.reset(false)
	c.collect = true
	err := c.run(r.V, r.V.UnsafePointer(), r.Name)
	c.collect = false
	c.buf = nil
	if err != nil {
		return err
	}
	e.arrays, err = mergeWindows(c.windows)
	return err
}

// SortSets puts the elements of every cmc:"set" slice reachable from the roots in the order Decode
// restores them, in place. The live objects then behave as their restored copy would where only a
// set's order differs (a handler that takes the first element), which is what the self-check
// compares.
func (enc *Encoder) SortSets(roots []Root) error {
	e := &enc.e
	e.sortSets = true
	defer func() { e.sortSets = false }()
	err := e.components(roots, nil, nil, false, nil)
	if sh, ok := err.(sharedInside); ok {
		err = e.components(roots, nil, nil, false, sh)
	}
	e.buf = nil
	return err
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

// reset starts a capture: no object is known yet.
func (e *encoder) reset(tracking bool) {
	e.seen.reset()
	e.types = e.types[:0]
	e.spans = e.spans[:0]
	e.spanPaths = e.spanPaths[:0]
	e.qpaths = e.qpaths[:0]
	e.tracking = tracking
	e.useGlobals()
}

func (e *encoder) useGlobals() {
	if e.glob == nil {
		// The table never changes once read; writing its pointer again at every capture costs a
		// write barrier while the collector runs.
		e.glob = globalsTable()
	}
	if e.globalKeys == nil {
		e.globalKeys = make(map[uintptr]string)
	}
	if len(e.globalKeys) > 0 {
		clear(e.globalKeys)
	}
}

// run encodes one component, whose root is at ptr, and returns the Error if it cannot.
func (e *encoder) run(root reflect.Value, ptr unsafe.Pointer, name string) (err error) {
	defer e.catch(&err)
	e.walk(root, ptr, name)
	return nil
}

// catch, deferred, turns a failure of walk into *err, and lets go of the state.
func (e *encoder) catch(err *error) {
	r := recover()
	if r == nil {
		return
	}
	f, ok := r.(encodeFailure)
	if !ok {
		panic(r)
	}
	path := e.name
	if e.tracking {
		path = strings.Join(e.path, "")
	}
	*err = &Error{Path: path, Reason: f.reason}
	e.arrayMode = false
	e.dropQueue()
	e.iter.done()
	clear(e.entries[:cap(e.entries)]) // a failed map walk leaves its entries past the length
	e.mapHeader = nil
}

// dropQueue lets go of the objects queued, so that the encoder does not keep the state alive. Of
// an object, only ptr is the queue's alone to hold (its plan is in the plan cache, its window in
// e.arrays). A component has an object or two, and clearing them one by one costs less than the
// call clear(e.queue) makes, and writes one pointer, not three.
func (e *encoder) dropQueue() {
	for i := range e.queue {
		e.queue[i].ptr = nil
	}
}

// walk encodes one component, whose root is at ptr, and panics with an encodeFailure if it
// cannot. Objects of earlier components of the same capture stay known, so a second reference to
// one of them is caught; numbers start again from 1 (base).
func (e *encoder) walk(root reflect.Value, ptr unsafe.Pointer, name string) {
	e.base = len(e.types)
	e.queue = e.queue[:0]
	e.inKey = false
	e.name = name
	if e.tracking {
		e.path = append(e.path[:0], name)
	}
	rp := e.plans.root(root.Type())
	e.rootStart = uintptr(ptr)
	e.rootEnd = e.rootStart + rp.size
	if rp.alone && !e.arrayMode && !e.tracking {
		// The root is the component's only object (array mode numbers backing arrays after it).
		// Numbering it and queueing it would serve no reference; its span still meets every
		// other component's memory in overlaps, as an Unchanged component's does. The tracking
		// run names the paths.
		e.addSpan(ptr, rp.size)
		e.fp.add(ptr, rp.elem, 1)
		rp.elem.fastEnc(e, ptr)
		return
	}
	if len(e.types) > 0 && rp.size > 0 { // the first root of a capture meets no object before it
		if n, ok := e.seen.get(uintptr(ptr)); ok {
			e.fail("this is the root of another component (%s) too: two components cannot hold one object; give each its own root", e.qpath(n))
		}
	}
	e.addObject(rp.id, ptr, rp.elem, rp.size == 0, false)
	for i := 0; i < len(e.queue); i++ {
		o := e.queue[i]
		if e.tracking {
			e.path = append(e.path[:0], e.qpaths[e.base+i])
		}
		switch {
		case o.arr != nil:
			e.arrayContent(o)
		case o.isMap:
			e.mapContent(o)
		default:
			o.plan.fastEnc(e, o.ptr)
		}
	}
	e.dropQueue()
}

// qpath is where object n (1-based, over the whole capture) was first reached, when tracking.
func (e *encoder) qpath(n int) string {
	if e.tracking && n-1 < len(e.qpaths) {
		return e.qpaths[n-1]
	}
	return "another component"
}

func (e *encoder) fail(format string, args ...any) {
	panic(encodeFailure{fmt.Sprintf(format, args...)})
}

func (e *encoder) push(seg string) { e.path = append(e.path, seg) }

func (e *encoder) pathString() string { return strings.Join(e.path, "") }
func (e *encoder) pop()               { e.path = e.path[:len(e.path)-1] }

// ref appends a reference to the object at ptr (a non-nil pointer or a map, of objectType t):
// 1 and a name for a global (globals.go), or its number plus one, numbering it on first sight, and
// reports whether it was new. Pointers to zero-size values are new objects every time: they never
// alias.
func (e *encoder) ref(t reflect.Type, ptr unsafe.Pointer, target *plan, zeroSize, isMap bool) (fresh bool) {
	if !zeroSize {
		if n, ok := e.seen.get(uintptr(ptr)); ok {
			if e.inKey {
				e.failInKey(t)
			}
			if e.types[n-1] != t {
				e.fail("%s points where a %s already is: pointers into the middle of another object cannot be captured; point to the whole object, or use an index", t, e.types[n-1])
			}
			if n <= e.base {
				e.fail("this %s is also %s: components (processes and environments) are restored separately, so they cannot share objects; keep a copy in one of them (send a value, not a pointer), or refer to the object by an id", t, e.qpath(n))
			}
			e.uvarint(uint64(n-e.base) + 1)
			return false
		}
		if !faults.NoGlobals && e.glob.isGlobal(ptr, !isMap && target.errorPointer) {
			if k := e.globalKey(t, ptr); k != "" {
				e.fp.global()
				e.buf = append(e.buf, 1)
				e.uvarint(uint64(len(k)))
				e.buf = append(e.buf, k...)
				return false
			}
		}
	}
	if e.inKey {
		e.failInKey(t)
	}
	e.uvarint(uint64(e.addObject(t, ptr, target, zeroSize, isMap)-e.base) + 1)
	return true
}

func (e *encoder) failInKey(t reflect.Type) {
	e.fail("%s inside a map key or set element cannot be captured canonically; key maps by value (an id or name), not by pointer", t)
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
		e.seen.put(uintptr(ptr), n)
		if !isMap {
			e.addSpan(ptr, target.t.Size()) // target is t's pointee's plan
			e.fp.add(ptr, target, 1)
		}
	}
	if isMap {
		e.fp.addMap(ptr, target, reflect.Value{})
	}
	return n
}

// uvarint appends x as binary.AppendUvarint does. Appending to e.buf in place writes only its
// length while it has room: e.buf = binary.AppendUvarint(e.buf, x) stores the whole slice, a
// pointer, which costs a write barrier whenever the collector is marking.
func (e *encoder) uvarint(x uint64) {
	for x >= 0x80 {
		e.buf = append(e.buf, byte(x)|0x80)
		x >>= 7
	}
	e.buf = append(e.buf, byte(x))
}

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
	n := p.t.Len()
	var elem *plan
	if p.t.Elem().Kind() == reflect.Uint8 { // raw bytes, not varints
		p.fastEnc = func(e *encoder, ptr unsafe.Pointer) {
			e.buf = append(e.buf, unsafe.Slice((*byte)(ptr), n)...)
		}
		p.fastDec = func(d *decoder, ptr unsafe.Pointer) {
			copy(unsafe.Slice((*byte)(ptr), n), d.take(uint64(n)))
		}
	} else {
		p.fastEnc, p.fastDec = arrayFast(n, p.t.Elem().Size(), &elem)
	}
	elem = planLocked(p.t.Elem())
	p.min = mulMin(elem.min, uint64(n))
	p.enc = func(e *encoder, v reflect.Value) {
		if ptr, ok := addr(v); ok {
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
		if ptr, ok := addr(v); ok {
			p.fastDec(d, ptr)
			return
		}
		for i := range n {
			elem.dec(d, v.Index(i))
		}
	}
}

func buildPointer(p *plan) {
	t := p.t
	var elem *plan
	p.fastEnc, p.fastDec = pointerFast(t, &elem)
	elem = planLocked(t.Elem())
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
	p := e.plans.get(c.Type())
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
	e.useGlobals()
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
