package canon

import (
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// How a graph names the elements of a slice, and so what their leaves' paths, and the diffs by
// path, say. A path should name the same element from one state to the next, so that a diff shows
// what happened to each element and a data breakpoint on one fires when that element changes:
//
//   - a slice with a key rule (Model.Key) names each element by its key: B.routes[Dest=D];
//   - a set (cmc:"set" or Model.Unordered) without one names each element by its value:
//     net.Pending[{A B RREP{…}}]. A set's order is not state, and its elements have no identity
//     but their value: an element that leaves the set is one removal, not a shift of the others;
//   - any other slice (and an array) names elements by position: q[0].
//
// Two elements that would get one name (equal keys, or set elements whose values print alike)
// are told apart by a count, [Dest=D#2], in the order the graph shows them. A name longer than
// maxName is cut, with a hash of the whole.

// keyCache holds each struct type's key rules, per field, under the rules in force (fieldKeys).
var keyCache sync.Map // reflect.Type -> [][]string

// fieldKeys returns the key rule of every field of struct type t (nil where there is none).
func fieldKeys(t reflect.Type) [][]string {
	if ks, ok := keyCache.Load(t); ok {
		return ks.([][]string)
	}
	rulesMu.Lock()
	var ks [][]string
	if len(keys) > 0 {
		name := typeName(t)
		for i := range t.NumField() {
			if key, ok := keys[[2]string{name, t.Field(i).Name}]; ok {
				if ks == nil {
					ks = make([][]string, t.NumField())
				}
				if _, err := keyFields(t.Field(i).Type, key); err == nil {
					ks[i] = key
				}
			}
		}
	}
	rulesMu.Unlock()
	keyCache.Store(t, ks)
	return ks
}

// checkKey checks the form of a key rule; keyFields checks it against the field's type.
func checkKey(r Rule) error {
	if r.Tag != "" {
		return fmt.Errorf("rule for %s.%s: a key rule has no tag, not %q (make the field a set with a rule of its own)", r.Type, r.Field, r.Tag)
	}
	if len(r.Key) == 0 {
		return fmt.Errorf("rule for %s.%s: no key fields; name the element fields that identify an element, as Model.Key(typ, field, \"ID\")", r.Type, r.Field)
	}
	for _, k := range r.Key {
		for _, f := range strings.Split(k, ".") {
			if !isIdentifier(f) {
				return fmt.Errorf("rule for %s.%s: key %q is not a field name or a path of them (Msg.ID)", r.Type, r.Field, k)
			}
		}
	}
	return nil
}

func isIdentifier(s string) bool {
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// keyFields resolves a key rule on a field of type t to the field indexes of each key, or says
// why the rule cannot name t's elements.
func keyFields(t reflect.Type, key []string) ([][]int, error) {
	if t.Kind() != reflect.Slice {
		return nil, fmt.Errorf("the field is a %s, not a slice; a key names the elements of a slice", t)
	}
	out := make([][]int, len(key))
	for i, k := range key {
		et := t.Elem()
		for _, name := range strings.Split(k, ".") {
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() != reflect.Struct {
				return nil, fmt.Errorf("key %s: %s is not a struct", k, et)
			}
			f, ok := et.FieldByName(name)
			if !ok || len(f.Index) != 1 {
				return nil, fmt.Errorf("key %s: %s has no field %s", k, et, name)
			}
			out[i] = append(out[i], f.Index[0])
			et = f.Type
		}
	}
	return out, nil
}

// elementNames returns the path segments of slice s's elements, taken in order: by key when
// key is set, by value when set is, else by position.
func (g *graphBuilder) elementNames(s reflect.Value, order []int, key []string, set bool) []string {
	out := make([]string, len(order))
	var fields [][]int
	if key != nil {
		fields, _ = keyFields(s.Type(), key) // fieldKeys checked it
	}
	for i, j := range order {
		e := s.Index(j)
		switch {
		case fields != nil:
			parts := make([]string, len(key))
			for n, idx := range fields {
				parts[n] = key[n] + "=" + describe(follow(e, idx))
			}
			out[i] = strings.Join(parts, ",")
		case set:
			out[i] = describe(e)
		default:
			out[i] = strconv.Itoa(i)
		}
	}
	if fields == nil && !set {
		for i := range out {
			out[i] = "[" + out[i] + "]"
		}
		return out
	}
	seen := make(map[string]int, len(out))
	for i, name := range out {
		name = shorten(name)
		seen[name]++
		if n := seen[name]; n > 1 {
			name += "#" + strconv.Itoa(n)
		}
		out[i] = bracket(name)
	}
	return out
}

// maxName bounds an element's name: every leaf below the element carries it in its path, and a
// name longer than a line is read by its start anyway. A longer one keeps its start and a hash of
// the whole, so distinct elements still get distinct names.
const maxName = 120

func shorten(name string) string {
	if len(name) <= maxName {
		return name
	}
	cut := maxName - 20
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%s…%08x", name[:cut], h.Sum32())
}

// follow walks field indexes from v, through pointers; a nil pointer on the way ends the walk.
func follow(v reflect.Value, idx []int) reflect.Value {
	for _, i := range idx {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return v
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}

// bracket makes a keyed segment of name: [name], or ["name"] when name's own brackets or quotes
// would not let a path be taken apart again (Path.Segments).
func bracket(name string) string {
	if seg := "[" + name + "]"; closing(seg) == len(seg)-1 {
		return seg
	}
	return "[" + strconv.Quote(name) + "]"
}

// describe renders a value for a name: as Render does, with a type's String method where it has
// one, and composites spelled out: {A B [C D] RREP{…}}. Fields left out of the state (cmc:"-")
// are left out here too: two elements equal as state get one name.
func describe(v reflect.Value) string {
	var b strings.Builder
	describeTo(&b, v)
	return b.String()
}

func describeTo(b *strings.Builder, v reflect.Value) {
	if s, ok := stringer(v); ok {
		b.WriteString(s)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		tags := fieldTags(v.Type())
		b.WriteByte('{')
		first := true
		for i := range v.NumField() {
			if tags[i] == "-" {
				continue
			}
			if !first {
				b.WriteByte(' ')
			}
			first = false
			describeTo(b, v.Field(i))
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(' ')
			}
			describeTo(b, v.Index(i))
		}
		b.WriteByte(']')
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		describeTo(b, v.Elem())
	default:
		b.WriteString(keyString(v))
	}
}
