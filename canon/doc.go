// Package canon captures the state a Go program really holds as canonical bytes, and only that.
//
// The checker is only as good as its notion of "the same state". Canon walks everything reachable
// from a root pointer by reflection, breadth-first in a fixed field order, and numbers heap objects
// (pointees and maps) in visit order, as section 3.4 of the CMC thesis does. Two heaps that differ only
// in addresses therefore encode to the same bytes; aliasing is kept ({p, p} differs from {p, q});
// cycles terminate. Map entries are ordered by the canonical encoding of their keys.
//
// The rules, stated once:
//   - bool, ints, uints, strings, arrays, structs (unexported fields too), slices, maps, pointers and
//     interfaces are captured. nil and empty differ (a nil slice is not an empty slice; a nil
//     interface is not an interface holding a typed nil pointer).
//   - floats are captured by their IEEE bits, with one rule: every NaN encodes as the same quiet NaN.
//     -0 and +0 differ, because a program can tell them apart (1/x).
//   - an interface carries the stable name of its dynamic type (package paths and names all the way
//     down), so hashes compare across processes and builds. Two types that would share a name (types
//     declared inside functions) are rejected.
//   - slices are captured by length and content; capacity is ignored. Two slices sharing one backing
//     array, and pointers into the middle of another object (a field, an element), are rejected:
//     canonical bytes could not restore that sharing.
//   - pointers to zero-size values never alias (Go itself does not say whether they are equal). A
//     named pointer or map type and its unnamed twin refer to one object like any two references.
//   - chan, func, unsafe.Pointer and uintptr types, map types whose keys hold pointers (whatever the
//     map holds), pointers inside interface map keys, and locked mutexes are rejected with the path
//     to the value and how to fix it.
//   - a struct field tagged `cmc:"-"` is not part of the state: it is neither hashed nor restored (a
//     root object keeps its current value there; objects recreated by Decode get the zero value).
//     A slice field tagged `cmc:"set"` is a multiset: its order does not matter, and Decode restores
//     it sorted by the canonical encoding of its elements. Its element type must hold no pointers.
//
// Every encoding begins, in effect, with Version: Hash mixes it in, so stored hashes from an older
// format never match. Plans are built once per type and are safe to share: Encoders on different
// goroutines may run at once (one Encoder is not safe for concurrent use).
package canon
