package engine

import (
	"reflect"
	"slices"
	"strconv"
	"unsafe"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
)

// A FieldRef names a field of a Go type, as cmc.Model.Omit and Bound do.
type FieldRef struct {
	Type  string `json:"type"` // package path and name (cmc.TypeName)
	Field string `json:"field"`
}

func (f FieldRef) String() string { return f.Type + "." + f.Field }

// fieldVisitor walks the live values reachable from a model's components and hands every
// integer field it watches (by type and field name) to a function, settable: the bounds read
// them, the slicing detector reads and resets them (slicing.go). Fields that are not state (the
// tag cmc:"-", Omit) are not visited.
type fieldVisitor struct {
	want  map[FieldRef]bool
	names map[reflect.Type]string
	seen  map[seenPtr]bool
	def   *cmc.Definition
	write bool // fn may set fields: map values visited as copies are put back
}

type seenPtr struct {
	p unsafe.Pointer
	t reflect.Type
}

func newFieldVisitor(def *cmc.Definition, want []FieldRef) *fieldVisitor {
	v := &fieldVisitor{want: map[FieldRef]bool{}, names: map[reflect.Type]string{}, def: def}
	for _, f := range want {
		v.want[f] = true
	}
	return v
}

// visit calls fn for every watched field of the live state, with a path that names the value
// (stable from one state to the next for the same element: component, fields, indices, map keys).
// fn may set the field.
func (v *fieldVisitor) visit(fn func(f FieldRef, path string, x reflect.Value)) {
	v.seen = map[seenPtr]bool{}
	for _, c := range v.def.Components {
		v.value(c.Root, c.Name, fn)
	}
}

func (v *fieldVisitor) typeName(t reflect.Type) string {
	n, ok := v.names[t]
	if !ok {
		n = canon.TypeName(t)
		v.names[t] = n
	}
	return n
}

// omitted reports whether a field is not part of the state.
func (v *fieldVisitor) omitted(typ string, f reflect.StructField) bool {
	if f.Tag.Get("cmc") == "-" {
		return true
	}
	for _, r := range v.def.Rules {
		if r.Tag == "-" && r.Type == typ && r.Field == f.Name {
			return true
		}
	}
	return false
}

func (v *fieldVisitor) value(x reflect.Value, path string, fn func(FieldRef, string, reflect.Value)) {
	switch x.Kind() {
	case reflect.Pointer:
		if x.IsNil() {
			return
		}
		k := seenPtr{x.UnsafePointer(), x.Type()}
		if v.seen[k] {
			return
		}
		v.seen[k] = true
		v.value(x.Elem(), "(*"+path+")", fn)
	case reflect.Interface:
		if !x.IsNil() {
			v.value(x.Elem(), path, fn)
		}
	case reflect.Struct:
		t := x.Type()
		name := v.typeName(t)
		for i := range t.NumField() {
			sf := t.Field(i)
			if v.omitted(name, sf) {
				continue
			}
			f := x.Field(i)
			if f.CanAddr() {
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // settable, even unexported
			}
			ref := FieldRef{name, sf.Name}
			if v.want[ref] && isInteger(f.Kind()) {
				fn(ref, path+"."+sf.Name, f)
				continue
			}
			v.value(f, path+"."+sf.Name, fn)
		}
	case reflect.Slice, reflect.Array:
		if x.Kind() == reflect.Slice && x.IsNil() {
			return
		}
		for i := range x.Len() {
			v.value(x.Index(i), path+"["+strconv.Itoa(i)+"]", fn)
		}
	case reflect.Map:
		keys := x.MapKeys()
		text := make([]string, len(keys))
		for i, k := range keys {
			text[i] = keyText(k)
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			if text[a] < text[b] {
				return -1
			}
			if text[a] > text[b] {
				return 1
			}
			return 0
		})
		for _, i := range order {
			// A map's values cannot be set in place: visit a copy and put it back.
			e := reflect.New(x.Type().Elem()).Elem()
			e.Set(x.MapIndex(keys[i]))
			v.value(e, path+"["+text[i]+"]", fn)
			if v.write && x.CanSet() {
				x.SetMapIndex(keys[i], e)
			}
		}
	}
}

func keyText(k reflect.Value) string {
	switch {
	case k.Kind() == reflect.String:
		return strconv.Quote(k.String())
	case k.CanInt():
		return strconv.FormatInt(k.Int(), 10)
	case k.CanUint():
		return strconv.FormatUint(k.Uint(), 10)
	}
	return k.Type().String()
}

func isInteger(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// intOf reads an integer field; a uint64 above the int64 range reads as the int64 maximum.
func intOf(x reflect.Value) int64 {
	if x.CanInt() {
		return x.Int()
	}
	u := x.Uint()
	if u > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(u)
}

// typeHasField reports whether a value of the named type with an integer field of that name
// may be reachable from t, by t's type alone; behind an interface anything may be, so
// an interface says maybe. It returns the field's kind when found, for the message.
func typeHasField(t reflect.Type, ref FieldRef, seen map[reflect.Type]bool) (found, maybe bool, kind reflect.Kind) {
	if seen[t] {
		return false, false, 0
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return typeHasField(t.Elem(), ref, seen)
	case reflect.Map:
		f, m, k := typeHasField(t.Key(), ref, seen)
		if f {
			return f, m, k
		}
		f2, m2, k2 := typeHasField(t.Elem(), ref, seen)
		return f2, m || m2, k2
	case reflect.Interface:
		return false, true, 0
	case reflect.Struct:
		if canon.TypeName(t) == ref.Type {
			if sf, ok := t.FieldByName(ref.Field); ok && len(sf.Index) == 1 {
				return true, false, sf.Type.Kind()
			}
		}
		maybe := false
		for i := range t.NumField() {
			f, m, k := typeHasField(t.Field(i).Type, ref, seen)
			if f {
				return f, m, k
			}
			maybe = maybe || m
		}
		return false, maybe, 0
	}
	return false, false, 0
}
