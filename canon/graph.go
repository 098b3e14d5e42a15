package canon

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/cmc-go/cmc/internal/transition"
)

// A Graph is the heap of a state as the debugger shows it: objects in canonical, breadth-first visit
// order (roots first), their scalar fields, and references labelled by field, key or index.
// The views only draw it; everything here is computed and tested in Go.
type Graph struct {
	Objects []Object `json:"objects"`
}

// An Object is one heap object: a root (a process), a pointee, a map or a slice.
type Object struct {
	ID      int     `json:"id"`             // 1-based, in canonical visit order
	Root    string  `json:"root,omitempty"` // the process, when this is its root
	Type    string  `json:"type"`
	Path    string  `json:"path"`              // the first path that reaches it, e.g. B.routes[D]
	Fields  []Value `json:"fields"`            // struct fields, map entries or slice elements
	Changed bool    `json:"changed,omitempty"` // set by Mark
}

// A Value is one field, element or entry: a scalar, a reference to an object, or an inline
// composite (struct, array, interface) with fields of its own.
type Value struct {
	Name   string  `json:"name"` // field name, [index] or [key]
	Type   string  `json:"type"`
	Scalar string  `json:"value,omitempty"` // rendered scalar, "nil", or a summary of a composite
	Ref    int     `json:"ref,omitempty"`   // the object this value refers to
	Fields []Value `json:"fields,omitempty"`
}

// A Root names one component of the state.
type Root struct {
	Name string
	V    reflect.Value // a non-nil pointer
	// Unchanged, when set, says the component is what it was when this footprint was recorded
	// (Footprint.Same): EncodeComponents does not encode it again, nor call emit for it, but still
	// checks that no other component shares its memory.
	Unchanged *Footprint
}

// NewGraph builds the graph of the state reachable from roots, in order.
func NewGraph(roots []Root) *Graph {
	g := &graphBuilder{seen: map[uintptr]int{}, sets: map[int]bool{}, keys: map[int][]string{}}
	for _, r := range roots {
		g.object(r.V, r.Name, r.Name)
	}
	for i := 0; i < len(g.queue); i++ {
		// Objects are filled in id order; fields are computed before the slice may grow.
		fields := g.fields(g.queue[i], i+1, g.objects[i].Path)
		g.objects[i].Fields = fields
	}
	return &Graph{Objects: g.objects}
}

type graphBuilder struct {
	objects []Object
	queue   []reflect.Value
	seen    map[uintptr]int
	sets    map[int]bool     // slices tagged cmc:"set", shown in canonical order
	keys    map[int][]string // slices with a key rule, their elements named by key (elements.go)
	enc     Encoder          // to order map keys and set elements canonically
}

// object returns the id of the object at v (pointer, map or slice), adding it on first sight.
func (g *graphBuilder) object(v reflect.Value, root, path string) int {
	addr := v.Pointer()
	zero := v.Kind() == reflect.Pointer && v.Type().Elem().Size() == 0
	if id, ok := g.seen[addr]; ok && !zero && graphType(g.queue[id-1].Type()) == graphType(v.Type()) {
		return id
	}
	id := len(g.objects) + 1
	if !zero {
		g.seen[addr] = id
	}
	g.objects = append(g.objects, Object{ID: id, Root: root, Type: v.Type().String(), Path: path})
	g.queue = append(g.queue, v)
	return id
}

// graphType is the type by which the graph knows an object: named and unnamed types that may
// refer to one object (type Table map[K]V and map[K]V) give one.
func graphType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Slice && t.Name() != "" {
		return reflect.SliceOf(t.Elem())
	}
	return objectType(t)
}

func (g *graphBuilder) fields(v reflect.Value, id int, path string) []Value {
	switch v.Kind() {
	case reflect.Pointer:
		e := v.Elem()
		if e.Kind() == reflect.Struct {
			return g.structFields(e, path)
		}
		return []Value{g.value("*", e, "(*"+path+")")}
	case reflect.Map:
		return g.mapEntries(v, path)
	case reflect.Slice:
		order := make([]int, v.Len())
		for i := range order {
			order[i] = i
		}
		if g.sets[id] {
			// A set's order is not state: show its elements as Decode would restore them.
			keys := make([][]byte, v.Len())
			for i := range keys {
				keys[i] = g.canonical(v.Index(i))
			}
			slices.SortStableFunc(order, func(a, b int) int { return bytes.Compare(keys[a], keys[b]) })
		}
		names := g.elementNames(v, order, g.keys[id], g.sets[id])
		out := make([]Value, v.Len())
		for i, j := range order {
			out[i] = g.value(names[i], v.Index(j), path+names[i])
		}
		return out
	}
	return nil
}

// canonical returns the encoding of a map key or set element, by which such values are ordered;
// for a value that cannot be encoded, its printed form.
func (g *graphBuilder) canonical(v reflect.Value) []byte {
	b, err := g.enc.encodeInline(nil, v)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	return b
}

func (g *graphBuilder) structFields(v reflect.Value, path string) []Value {
	t := v.Type()
	var out []Value
	tags := fieldTags(t)
	keys := fieldKeys(t)
	for i := range t.NumField() {
		sf := t.Field(i)
		if tags[i] == "-" {
			continue
		}
		val := g.value(sf.Name, v.Field(i), path+"."+sf.Name)
		if tags[i] == "set" && val.Ref != 0 {
			g.sets[val.Ref] = true
		}
		if keys != nil && keys[i] != nil && val.Ref != 0 {
			g.keys[val.Ref] = keys[i]
		}
		out = append(out, val)
	}
	return out
}

func (g *graphBuilder) mapEntries(m reflect.Value, path string) []Value {
	type entry struct {
		key  []byte
		name string
		v    reflect.Value
	}
	var entries []entry
	it := m.MapRange()
	for it.Next() {
		entries = append(entries, entry{key: g.canonical(it.Key()), name: "[" + Render(it.Key()) + "]", v: it.Value()})
	}
	slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
	out := make([]Value, len(entries))
	for i, e := range entries {
		out[i] = g.value(e.name, e.v, path+e.name)
	}
	return out
}

func (g *graphBuilder) value(name string, v reflect.Value, path string) Value {
	out := Value{Name: name, Type: v.Type().String()}
	switch v.Kind() {
	case reflect.Pointer, reflect.Map:
		if v.IsNil() {
			out.Scalar = "nil"
		} else {
			out.Ref = g.object(v, "", path)
			if v.Kind() == reflect.Map {
				out.Scalar = fmt.Sprintf("len %d", v.Len())
			}
		}
	case reflect.Slice:
		switch {
		case v.IsNil():
			out.Scalar = "nil"
		case v.Len() == 0:
			out.Scalar = "[]"
		default:
			out.Scalar = fmt.Sprintf("len %d", v.Len())
			out.Ref = g.object(v, "", path)
		}
	case reflect.Interface:
		if v.IsNil() {
			out.Scalar = "nil"
		} else {
			inner := g.value(name, v.Elem(), path)
			inner.Type = v.Elem().Type().String()
			return inner
		}
	case reflect.Struct:
		out.Fields = g.structFields(v, path)
		out.Scalar = "{…}"
		if s, ok := stringer(v); ok {
			out.Scalar = s
		}
	case reflect.Func:
		out.Scalar = "nil"
		if !v.IsNil() {
			if f := runtime.FuncForPC(v.Pointer()); f != nil {
				out.Scalar = strings.TrimSuffix(f.Name(), "-fm") // what funcs.go captures
			}
		}
	case reflect.Array:
		out.Fields = make([]Value, v.Len())
		for i := range v.Len() {
			out.Fields[i] = g.value(indexSeg(i), v.Index(i), path+indexSeg(i))
		}
		out.Scalar = fmt.Sprintf("[%d]", v.Len())
	default:
		out.Scalar = Render(v)
	}
	return out
}

// Render renders a scalar the way a Go programmer reads it: strings quoted, and a type's own
// String method when it has one (NodeID 3 shows as its name).
func Render(v reflect.Value) string {
	if s, ok := stringer(v); ok {
		return s
	}
	return keyString(v)
}

var stringerType = reflect.TypeFor[fmt.Stringer]()

// stringer calls a value's String method, if its type has one with a value receiver. A panic in
// it is shown, not propagated: the debugger must survive the user's code.
func stringer(v reflect.Value) (s string, ok bool) {
	if !v.Type().Implements(stringerType) || !v.CanInterface() {
		if !v.CanInterface() && v.Type().Implements(stringerType) && v.CanAddr() {
			v = settable(v)
		} else {
			return "", false
		}
	}
	transition.Enter() // user code: a String method that never returns is a hang the watchdog reports
	defer func() {
		transition.Leave()
		if r := recover(); r != nil {
			s, ok = fmt.Sprintf("<String panicked: %v>", r), true
		}
	}()
	return v.Interface().(fmt.Stringer).String(), true
}
