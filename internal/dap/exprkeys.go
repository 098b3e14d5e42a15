package dap

import (
	"fmt"
	"slices"
	"strings"
)

// An element of a keyed slice is named by its key's fields (A.routes["Dest=D"]), as the Variables
// pane shows it. Users write what they mean instead: A.routes["D"], or A.routes[D] with D a
// process. When every element is named by one field (Dest=B, Dest=C), its value alone names the
// element: "D" is "Dest=D". A name of another form, which no step of any trace could have (a
// field the key does not have, one value for a key of two fields), is an error that says how to
// write it, not a quiet nil: a condition with it would never stop, and nothing would say why.
// A name of the right form that is absent now is nil, as a missing map entry is.

// elementByKey is the element of a keyed collection (a map, set or keyed slice: from) that k
// names when no element is named k exactly: nil when k has the form of its names, an error when
// it cannot.
func elementByKey(from map[any]any, k any) (any, error) {
	name, isString := k.(string)
	if !isString {
		if _, isInt := k.(int); !isInt {
			return nil, nil
		}
		name = fmt.Sprint(k)
	}
	fields := keyFields(from)
	switch {
	case len(fields) == 0:
		// A map or set named by value (B, {0 1 AD{...}}), or nothing yet to tell the form by.
		return nil, nil
	case strings.Contains(name, "="):
		if got := fieldsOf(name); !slices.Equal(got, fields) {
			return nil, fmt.Errorf("no element %q: elements here are named by %s; write %s", name, strings.Join(fields, ","), example(fields))
		}
		return nil, nil
	case len(fields) == 1:
		return from[fields[0]+"="+name], nil
	}
	return nil, fmt.Errorf("no element %q: elements here are named by %s, which one value cannot name; write %s", name, strings.Join(fields, ","), example(fields))
}

// keyFields are the fields a keyed slice's elements are named by (Dest; Orig,ID), when every
// element's name has the same ones; else none.
func keyFields(from map[any]any) []string {
	var fields []string
	for k := range from {
		name, ok := k.(string)
		if !ok || !strings.Contains(name, "=") {
			return nil
		}
		f := fieldsOf(name)
		if fields == nil {
			fields = f
		} else if !slices.Equal(f, fields) {
			return nil
		}
	}
	return fields
}

// fieldsOf is the fields of an element's name: Orig=B,ID=1 has Orig and ID.
func fieldsOf(name string) []string {
	var fields []string
	for part := range strings.SplitSeq(name, ",") {
		f, _, _ := strings.Cut(part, "=")
		fields = append(fields, f)
	}
	return fields
}

// example is a name of that form, to copy: ["Orig=…,ID=…"].
func example(fields []string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f + "=…"
	}
	return `["` + strings.Join(parts, ",") + `"]`
}

// indexName is the key an index written as a name stands for (A.routes[D], D a process): the
// name itself, when its value cannot be a key.
func indexName(v any, name string) any {
	switch v.(type) {
	case string, int, bool:
		return v
	}
	return name
}
