package main

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// A tsFile writes the TypeScript twins of Go types as encoding/json marshals them: an interface
// for each named struct type reached, fields named by their JSON tags (optional with omitempty or
// omitzero), slices as arrays, maps as records, and a string type of its own as the union of its
// values, which the Go code lists next to its constants (views.ArrowKinds, say).
type tsFile struct {
	enums  map[reflect.Type][]string
	byName map[string]reflect.Type // the interfaces to write, by TypeScript name
	queue  []reflect.Type          // in the order first reached
	err    error
}

// enum registers the values of a string type: T's TypeScript type is their union.
func enum[T ~string](values []T) func(*tsFile) {
	return func(f *tsFile) {
		vs := make([]string, len(values))
		for i, v := range values {
			vs[i] = string(v)
		}
		f.enums[reflect.TypeFor[T]()] = vs
	}
}

func newTSFile(enums ...func(*tsFile)) *tsFile {
	f := &tsFile{enums: map[reflect.Type][]string{}, byName: map[string]reflect.Type{}}
	for _, e := range enums {
		e(f)
	}
	return f
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// ref is the TypeScript type of t; a named struct type is queued to be declared.
func (f *tsFile) ref(t reflect.Type) string {
	if vs, ok := f.enums[t]; ok {
		return union(vs)
	}
	switch {
	case t.Kind() == reflect.Pointer:
		return f.ref(t.Elem())
	case t == timeType:
		return "string"
	case t.Implements(jsonMarshaler):
		return "unknown" // its JSON is its own (json.RawMessage)
	case t.Implements(textMarshaler):
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		if t.PkgPath() != "" {
			f.fail("%s is a string type of its own: list its values (like views.ArrowKinds) and register them in internal/gen, or make it a string", t)
		}
		return "string"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		e := f.ref(t.Elem())
		if strings.Contains(e, "|") {
			e = "(" + e + ")"
		}
		return e + "[]"
	case reflect.Map:
		return "Record<string, " + f.ref(t.Elem()) + ">"
	case reflect.Interface:
		return "unknown"
	case reflect.Struct:
		if t.Name() == "" {
			return f.object(t)
		}
		name := tsName(t)
		if other, ok := f.byName[name]; ok && other != t {
			f.fail("%s and %s would both be the TypeScript interface %s", other, t, name)
		} else if !ok {
			f.byName[name] = t
			f.queue = append(f.queue, t)
		}
		return name
	}
	f.fail("%s: a %s has no JSON", t, t.Kind())
	return "never"
}

// object is an anonymous struct type inline: { a: T; b?: U }.
func (f *tsFile) object(t reflect.Type) string {
	fs := f.fields(t)
	if len(fs) == 0 {
		return "Record<string, never>"
	}
	return "{ " + strings.Join(fs, "; ") + " }"
}

// fields are t's fields as encoding/json marshals them, each as "name: type" or "name?: type".
// An embedded struct without a JSON name has its fields inline, as encoding/json does; a name
// that two fields would share is an error (Go's rules for which one wins are not written here).
func (f *tsFile) fields(t reflect.Type) []string {
	var out []string
	seen := map[string]bool{}
	f.addFields(t, &out, seen)
	return out
}

func (f *tsFile) addFields(t reflect.Type, out *[]string, seen map[string]bool) {
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				f.addFields(et, out, seen)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if seen[name] {
			f.fail("%s: two fields are named %q in JSON", t, name)
		}
		seen[name] = true
		if strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,") {
			name += "?"
		}
		*out = append(*out, name+": "+f.ref(sf.Type))
	}
}

// interfaces declares every named struct type reached so far, and those they reach.
func (f *tsFile) interfaces() string {
	var b strings.Builder
	for i := 0; i < len(f.queue); i++ {
		t := f.queue[i]
		fmt.Fprintf(&b, "\n/** %s */\nexport interface %s {\n", t, tsName(t))
		for _, field := range f.fields(t) {
			b.WriteString("  " + field + ";\n")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// tsName is a Go type's name as a TypeScript type: exported.
func tsName(t reflect.Type) string {
	return strings.ToUpper(t.Name()[:1]) + t.Name()[1:]
}

func union(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = tsString(v)
	}
	return strings.Join(q, " | ")
}

func (f *tsFile) fail(format string, args ...any) {
	if f.err == nil {
		f.err = fmt.Errorf(format, args...)
	}
}
