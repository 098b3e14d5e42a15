package canon

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A plan encodes and decodes one Go type. Plans are built once per type and cached, as encoding/json
// caches its encoders.
type plan struct {
	t    reflect.Type
	enc  func(e *encoder, v reflect.Value)
	dec  func(d *decoder, v reflect.Value)
	name string // stable name, for interfaces
	min  uint64 // fewest bytes a value of t encodes to, to bound decoding of corrupt input

	// memory fast paths (see fast.go)
	fastEnc fastEnc
	fastDec fastDec
	ptrType unsafe.Pointer // the runtime's type of *t (plan.at)

	// maps only
	key, elem *plan
	// keysExact: two keys of K that are == encode the same (no float, complex or interface in
	// K), so a footprint can tell a map is unchanged by looking its entries up (Footprint.Same).
	keysExact bool

	registered atomic.Bool // name checked against the names of other types

	// errorPointer: a *t is an error, so a pointer to a t may be a sentinel error (globals.go).
	// Known once here, not asked of reflect at every pointer an encoder meets.
	errorPointer bool

	// mayRef: values of t may reach heap objects (typeMayRef). Known once here, not asked at every
	// capture by a new Encoder (the self-check makes one a check).
	mayRef bool

	// flat: a value's encoding follows from its memory alone, a set element's the memo can keep
	// (setmemo.go).
	flat bool

	// partial: a struct's state fields, when it also has fields that are not state (cmc:"-" or
	// a rule); nil otherwise. A footprint restores only these in a root (Footprint.Restore).
	partial []field
}

var (
	plans    sync.Map // reflect.Type -> *plan, complete plans only
	planGen  atomic.Uint64
	buildMu  sync.Mutex
	building map[reflect.Type]*plan // under buildMu: plans of the build in progress
)

// A planCache remembers the plans of the few types an Encoder or a Decoder starts from (roots,
// interfaces' dynamic types), so a capture does not look them up in the process-wide table at every
// call, and what a root's type tells a capture (rootPlan). It forgets them when the rules change
// (SetRules). The zero value is ready; a nil one caches nothing.
type planCache struct {
	gen   uint64
	types []unsafe.Pointer // rtypeOf of each type
	plans []*plan
	roots []rootPlan
}

// A rootPlan is what capturing a component needs to know of its root's type *T: resolved once, not
// asked of reflect at every capture.
type rootPlan struct {
	key  unsafe.Pointer // rtypeOf of *T
	id   reflect.Type   // the type the root object is known by (objectType)
	elem *plan          // T's
	size uintptr        // T's
	// alone: T reaches no object (no pointer, map, interface or func; strings and slices are
	// fine), so in plain mode the root is its component's one object, and nothing refers to
	// it by number.
	alone bool
}

// rtypeOf is the runtime's type behind t, the data word of the interface holding it: it identifies
// t (two keys compare as one word, without the runtime call comparing interface values costs), and
// it is what the runtime's typed copies take (footprint.go).
func rtypeOf(t reflect.Type) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1] }

func (c *planCache) get(t reflect.Type) *plan {
	if c == nil {
		return planFor(t)
	}
	c.sync()
	k := rtypeOf(t)
	for i, ct := range c.types {
		if ct == k {
			return c.plans[i]
		}
	}
	p := planFor(t)
	if len(c.types) < 32 {
		c.types = append(c.types, k)
		c.plans = append(c.plans, p)
	}
	return p
}

// root returns the rootPlan of pointer type t.
func (c *planCache) root(t reflect.Type) *rootPlan {
	c.sync()
	k := rtypeOf(t)
	for i := range c.roots {
		if c.roots[i].key == k {
			return &c.roots[i]
		}
	}
	el := t.Elem()
	p := planFor(el)
	r := rootPlan{key: k, id: objectType(t), elem: p, size: el.Size(), alone: el.Size() > 0 && !p.mayRef}
	if len(c.roots) < 32 {
		c.roots = append(c.roots, r)
		return &c.roots[len(c.roots)-1]
	}
	return &r
}

// sync forgets everything when the rules have changed since it was cached.
func (c *planCache) sync() {
	if g := planGen.Load(); g != c.gen {
		c.gen, c.types, c.plans, c.roots = g, c.types[:0], c.plans[:0], c.roots[:0]
	}
}

// planFor returns the cached plan of t, building it on first use. A plan is published only once it
// and every plan it refers to are complete, so encoders on other goroutines never see half a plan.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	building = make(map[reflect.Type]*plan)
	p := planLocked(t)
	for t, p := range building {
		plans.Store(t, p)
	}
	building = nil
	return p
}

// planLocked returns the plan of t, building it and the plans it needs. Recursive types are fine:
// a plan is entered in building before its parts are built.
func planLocked(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{t: t, name: typeName(t), errorPointer: reflect.PointerTo(t).Implements(errorType), mayRef: typeMayRef(t),
		flat: isFlat(t)}
	building[t] = p
	buildPlan(p)
	reflectFast(p)
	return p
}

var (
	mutexType   = reflect.TypeFor[sync.Mutex]()
	rwMutexType = reflect.TypeFor[sync.RWMutex]()
)

func buildPlan(p *plan) {
	t := p.t
	if t == mutexType || t == rwMutexType {
		p.enc, p.dec = encMutex, func(*decoder, reflect.Value) {}
		return
	}
	if isHandle(t) {
		buildHandle(p)
		return
	}
	p.fastEnc, p.fastDec = scalarFast(t.Kind())
	switch t.Kind() {
	case reflect.Bool:
		p.enc, p.dec, p.min = encBool, decBool, 1
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.enc, p.dec, p.min = encInt, decInt, 1
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.enc, p.dec, p.min = encUint, decUint, 1
	case reflect.Float32, reflect.Float64:
		p.enc, p.dec, p.min = encFloat, decFloat, 8
	case reflect.Complex64, reflect.Complex128:
		p.enc, p.dec, p.min = encComplex, decComplex, 16
	case reflect.String:
		p.enc, p.dec, p.min = encString, decString, 1
	case reflect.Array:
		buildArray(p)
	case reflect.Slice:
		buildSlice(p, false)
	case reflect.Struct:
		buildStruct(p)
	case reflect.Pointer:
		buildPointer(p)
	case reflect.Map:
		buildMap(p)
	case reflect.Interface:
		p.enc, p.dec, p.min = encInterface, decInterface, 1
		p.fastDec = interfaceFast(t)
	case reflect.Func:
		buildFunc(p)
	default: // chan, unsafe.Pointer, uintptr
		reject(p, rejection(t))
	}
}

// reject makes p fail with reason wherever a value of its type is met.
func reject(p *plan, reason string) {
	p.enc = func(e *encoder, v reflect.Value) { e.fail("%s", reason) }
	p.dec = func(d *decoder, v reflect.Value) { d.fail("%s is never encoded", p.t) }
}

// rejection says why a type cannot be captured and how to fix it.
func rejection(t reflect.Type) string {
	how := `; move it behind an environment interface, or tag the field cmc:"-" if it is not state`
	switch t.Kind() {
	case reflect.Chan:
		return fmt.Sprintf("%s cannot be part of checked state: checked code talks through the environment, not channels%s", t, how)
	case reflect.Func:
		return fmt.Sprintf("%s cannot be part of checked state: a closure's captured variables are invisible to the checker%s", t, how)
	case reflect.UnsafePointer:
		return fmt.Sprintf("%s cannot be part of checked state: an unsafe.Pointer's target is unknown%s", t, how)
	case reflect.Uintptr:
		return fmt.Sprintf("%s cannot be part of checked state: a uintptr usually holds an address, which differs between runs; use a sized integer type%s", t, how)
	}
	return fmt.Sprintf("%s cannot be part of checked state%s", t, how)
}

// field is one captured field of a struct.
type field struct {
	index  int
	offset uintptr
	name   string
	plan   *plan
}

func buildStruct(p *plan) {
	t := p.t
	var fields []field
	var hidden []reflect.StructField // not state (AsDecoded)
	p.fastEnc, p.fastDec = structFast(&fields, &hidden)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := ruleTag(t, sf)
		if tag == "-" {
			hidden = append(hidden, sf)
			continue
		}
		f := field{index: i, offset: sf.Offset, name: sf.Name}
		switch tag {
		case "":
			f.plan = planLocked(sf.Type)
		case "set":
			f.plan = &plan{t: sf.Type, name: typeName(sf.Type)}
			if sf.Type.Kind() != reflect.Slice {
				reject(f.plan, fmt.Sprintf(`cmc:"set" applies to slices, not %s`, sf.Type))
			} else {
				buildSlice(f.plan, true)
			}
			reflectFast(f.plan)
		default:
			f.plan = &plan{t: sf.Type, name: typeName(sf.Type)}
			reject(f.plan, fmt.Sprintf(`unknown tag cmc:%q; use cmc:"-" (not state) or cmc:"set" (unordered slice)`, tag))
			reflectFast(f.plan)
		}
		p.min = addMin(p.min, f.plan.min)
		fields = append(fields, f)
	}
	if len(hidden) > 0 {
		p.partial = append([]field{}, fields...) // not nil, even with no state field
	}
	p.enc = func(e *encoder, v reflect.Value) {
		if ptr, ok := addr(v); ok {
			p.fastEnc(e, ptr)
			return
		}
		if hidden != nil {
			e.hidden(hidden, nil, v)
		}
		for i := range fields {
			f := &fields[i]
			if e.tracking {
				e.push("." + f.name)
			}
			f.plan.enc(e, v.Field(f.index))
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
		for i := range fields {
			f := &fields[i]
			f.plan.dec(d, settable(v.Field(f.index)))
		}
	}
}

// hidden notes the fields of a struct that are not state (at ptr, or v when it is not addressable).
// Decode fills the component's root object in place, so such fields there keep their values;
// anywhere else Decode makes them zero, so the live struct is as decoded only if they are zero.
func (e *encoder) hidden(fields []reflect.StructField, ptr unsafe.Pointer, v reflect.Value) {
	if !e.asDecoded || (ptr != nil && uintptr(ptr) >= e.rootStart && uintptr(ptr) < e.rootEnd) {
		return
	}
	for _, f := range fields {
		zero := false
		if ptr != nil {
			zero = allZero(unsafe.Slice((*byte)(unsafe.Add(ptr, f.Offset)), f.Type.Size()))
		} else {
			zero = v.FieldByIndex(f.Index).IsZero()
		}
		if !zero {
			e.asDecoded = false
			return
		}
	}
}

// addMin and mulMin add and multiply byte counts, saturating instead of overflowing.
func addMin(a, b uint64) uint64 {
	if a > math.MaxUint32 || b > math.MaxUint32 {
		return math.MaxUint32
	}
	return a + b
}

func mulMin(a, n uint64) uint64 {
	if a != 0 && n > math.MaxUint32/a {
		return math.MaxUint32
	}
	return a * n
}

// typeMayRef reports whether values of t can reach heap objects, without building plans (which may
// still be under construction for recursive types).
func typeMayRef(t reflect.Type) bool { return mayRef(t, map[reflect.Type]bool{}) }

// mayRef is typeMayRef, met holding the structs being looked at: a struct met again inside
// itself (through a slice) reaches nothing it does not reach already.
func mayRef(t reflect.Type, met map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array, reflect.Slice:
		return mayRef(t.Elem(), met)
	case reflect.Struct:
		if met[t] {
			return false
		}
		met[t] = true
		for i := range t.NumField() {
			if ruleTag(t, t.Field(i)) != "-" && mayRef(t.Field(i).Type, met) {
				return true
			}
		}
	}
	return false
}

// keyHoldsPointers reports whether map keys of type t hold pointers, statically. Interface keys are
// checked value by value instead: map[any]V keyed by strings is fine.
func keyHoldsPointers(t reflect.Type) bool {
	return !everyLeaf(t, func(k reflect.Kind) bool {
		return k != reflect.Pointer && k != reflect.Chan && k != reflect.UnsafePointer
	})
}

// keysExact reports whether keys of type t that are == always encode the same: not when t holds a
// float (0 == -0), a complex or an interface (which may hold either).
func keysExact(t reflect.Type) bool {
	return everyLeaf(t, func(k reflect.Kind) bool {
		switch k {
		case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.Interface:
			return false
		}
		return true
	})
}

// everyLeaf reports whether ok holds for the kind of every value inside a value of type t that is
// not an array or a struct.
func everyLeaf(t reflect.Type, ok func(reflect.Kind) bool) bool {
	switch t.Kind() {
	case reflect.Array:
		return everyLeaf(t.Elem(), ok)
	case reflect.Struct:
		for i := range t.NumField() {
			if !everyLeaf(t.Field(i).Type, ok) {
				return false
			}
		}
		return true
	}
	return ok(t.Kind())
}

// typeName is the stable name of a type: package paths, not package names, all the way down, so the
// same type has the same name in every process and build, and two types never share one, except
// types declared inside functions, which registerType catches.
func typeName(t reflect.Type) string {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			return t.Name() // predeclared
		}
		return t.PkgPath() + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + typeName(t.Elem())
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + typeName(t.Elem())
	case reflect.Map:
		return "map[" + typeName(t.Key()) + "]" + typeName(t.Elem())
	case reflect.Chan:
		switch t.ChanDir() {
		case reflect.RecvDir:
			return "<-chan " + typeName(t.Elem())
		case reflect.SendDir:
			return "chan<- " + typeName(t.Elem())
		}
		return "chan " + typeName(t.Elem())
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("struct {")
		for i := range t.NumField() {
			f := t.Field(i)
			if i > 0 {
				b.WriteString(";")
			}
			b.WriteString(" ")
			if !f.Anonymous {
				if f.PkgPath != "" {
					b.WriteString(f.PkgPath + ".")
				}
				b.WriteString(f.Name + " ")
			}
			b.WriteString(typeName(f.Type))
			if f.Tag != "" {
				b.WriteString(" " + strconv.Quote(string(f.Tag)))
			}
		}
		b.WriteString(" }")
		return b.String()
	}
	return t.String() // func and interface types: never captured by name
}

// types maps the stable names of the dynamic types seen inside interfaces back to the types, so
// Decode can rebuild them.
var types sync.Map // string -> reflect.Type

// registerType enters p's type under its name, and fails if another type has that name already:
// two types declared inside functions can share a package path and a name, and hashes would not
// tell them apart.
func (e *encoder) registerType(p *plan) {
	if p.registered.Load() {
		return
	}
	if t, loaded := types.LoadOrStore(p.name, p.t); loaded && t != p.t {
		e.fail("%s shares its name with another type (types declared inside functions?), and states could not tell them apart; declare it at package level", p.t)
	}
	p.registered.Store(true)
}

// path segments, used only when an error must say where it happened.
func indexSeg(i int) string { return "[" + strconv.Itoa(i) + "]" }

func keySeg(k reflect.Value) string { return "[" + keyString(k) + "]" }

// keyString renders a map key for a path: strings quoted, and no addresses, so a path is the same
// in every run.
func keyString(k reflect.Value) string {
	switch k.Kind() {
	case reflect.String:
		return strconv.Quote(k.String())
	case reflect.Bool:
		return strconv.FormatBool(k.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(k.Float(), 'g', -1, 64)
	case reflect.Complex64, reflect.Complex128:
		return strconv.FormatComplex(k.Complex(), 'g', -1, 128)
	case reflect.Interface:
		if k.IsNil() {
			return "nil"
		}
		return keyString(k.Elem())
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer:
		if k.IsNil() {
			return "nil"
		}
		return "(" + k.Type().String() + ")"
	case reflect.Struct:
		parts := make([]string, k.NumField())
		for i := range parts {
			parts[i] = keyString(k.Field(i))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Array:
		parts := make([]string, k.Len())
		for i := range parts {
			parts[i] = keyString(k.Index(i))
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return k.Type().String()
}
