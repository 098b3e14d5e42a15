package canon

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// A plan encodes and decodes one Go type. Plans are built once per type and cached, as encoding/json
// caches its encoders.
type plan struct {
	t      reflect.Type
	enc    func(e *encoder, v reflect.Value)
	dec    func(d *decoder, v reflect.Value)
	hasRef bool // holds pointers, maps or interfaces: may reach heap objects
	name   string
}

var plans sync.Map // reflect.Type -> *plan

// planFor returns the cached plan of t, building it on first use. Recursive types are fine: the
// plan is published before its parts are built, and pointers look their element's plan up lazily.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := &plan{t: t, name: typeName(t)}
	if actual, loaded := plans.LoadOrStore(t, p); loaded {
		return actual.(*plan)
	}
	buildPlan(p)
	return p
}

var (
	mutexType   = reflect.TypeFor[sync.Mutex]()
	rwMutexType = reflect.TypeFor[sync.RWMutex]()
)

func buildPlan(p *plan) {
	t := p.t
	switch {
	case t == mutexType || t == rwMutexType:
		p.enc, p.dec = encMutex, func(*decoder, reflect.Value) {}
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		p.enc, p.dec = encBool, decBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.enc, p.dec = encInt, decInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.enc, p.dec = encUint, decUint
	case reflect.Float32, reflect.Float64:
		p.enc, p.dec = encFloat, decFloat
	case reflect.Complex64, reflect.Complex128:
		p.enc, p.dec = encComplex, decComplex
	case reflect.String:
		p.enc, p.dec = encString, decString
	case reflect.Array:
		buildArray(p)
	case reflect.Slice:
		buildSlice(p, false)
	case reflect.Struct:
		buildStruct(p)
	case reflect.Pointer:
		p.hasRef = true
		p.enc, p.dec = encPointer, decPointer
	case reflect.Map:
		p.hasRef = true
		p.enc, p.dec = encMapRef, decMapRef
	case reflect.Interface:
		p.hasRef = true
		p.enc, p.dec = encInterface, decInterface
	default: // chan, func, unsafe.Pointer, uintptr
		reject := rejection(t)
		p.enc = func(e *encoder, v reflect.Value) { e.fail("%s", reject) }
		p.dec = func(d *decoder, v reflect.Value) { d.fail("cannot decode %s", t) }
	}
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
	index int
	name  string
	plan  *plan
	set   bool // tagged cmc:"set"
}

func buildStruct(p *plan) {
	t := p.t
	var fields []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("cmc")
		if tag == "-" {
			continue
		}
		f := field{index: i, name: sf.Name}
		switch tag {
		case "":
		case "set":
			if sf.Type.Kind() != reflect.Slice {
				f.plan = &plan{t: sf.Type, name: typeName(sf.Type)}
				msg := fmt.Sprintf(`field %s: cmc:"set" applies to slices, not %s`, sf.Name, sf.Type)
				f.plan.enc = func(e *encoder, v reflect.Value) { e.fail("%s", msg) }
				fields = append(fields, f)
				continue
			}
			f.set = true
			f.plan = &plan{t: sf.Type, name: typeName(sf.Type)}
			buildSlice(f.plan, true)
		default:
			f.plan = &plan{t: sf.Type, name: typeName(sf.Type)}
			msg := fmt.Sprintf(`field %s: unknown tag cmc:%q; use cmc:"-" (not state) or cmc:"set" (unordered slice)`, sf.Name, tag)
			f.plan.enc = func(e *encoder, v reflect.Value) { e.fail("%s", msg) }
		}
		if f.plan == nil {
			f.plan = planFor(sf.Type)
		}
		p.hasRef = p.hasRef || f.plan.hasRef || typeMayRef(sf.Type)
		fields = append(fields, f)
	}
	p.enc = func(e *encoder, v reflect.Value) {
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
		for i := range fields {
			f := &fields[i]
			f.plan.dec(d, settable(v.Field(f.index)))
		}
	}
}

// typeMayRef reports whether values of t can reach heap objects, without building plans (which may
// still be under construction for recursive types).
func typeMayRef(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array, reflect.Slice:
		return typeMayRef(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("cmc") != "-" && typeMayRef(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// typeName is the stable name of a type: its package path and name when it has one, so the same
// type has the same name in every process and build.
func typeName(t reflect.Type) string {
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}

// types maps the stable names of the dynamic types seen inside interfaces back to the types, so
// Decode can rebuild them.
var types sync.Map // string -> reflect.Type

func registerType(p *plan) {
	if _, ok := types.Load(p.name); !ok {
		types.Store(p.name, p.t)
	}
}

// path segments, used only when an error must say where it happened.
func indexSeg(i int) string { return fmt.Sprintf("[%d]", i) }

func keySeg(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return fmt.Sprintf("[%q]", k.String())
	}
	return "[" + strings.TrimSpace(fmt.Sprint(k)) + "]"
}
