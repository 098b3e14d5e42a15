// Package canon captures the state a Go program really holds as canonical bytes, and only that.
//
// The checker is only as good as its notion of "the same state". Canon walks everything reachable
// from a root pointer by reflection, breadth-first in a fixed field order, and numbers heap objects
// (pointees and maps) in visit order, as section 3.4 of the CMC thesis does. Two heaps that differ only
// in addresses therefore encode to the same bytes; aliasing is kept ({p, p} differs from {p, q});
// cycles terminate. Map entries are ordered by the canonical encoding of their keys.
//
// What a state is, stated once. A model's state is a list of components (processes and
// environment components); each is everything reachable from its root pointer, and each is
// captured and restored on its own. The rules follow from asking, for every thing Go keeps, whether
// a handler run on the restored copy behaves exactly as on the live objects:
//   - bool, ints, uints, strings, arrays, structs (unexported fields too), slices, maps, pointers and
//     interfaces are captured. nil and empty differ (a nil slice is not an empty slice; a nil
//     interface is not an interface holding a typed nil pointer).
//   - floats are captured by their IEEE bits, with one rule: every NaN encodes as the same quiet NaN.
//     -0 and +0 differ, because a program can tell them apart (1/x).
//   - an interface carries the stable name of its dynamic type (package paths and names all the way
//     down), so hashes compare across processes and builds. Two types that would share a name (types
//     declared inside functions) are rejected.
//   - Sharing. Aliasing inside a component is kept ({p, p} differs from {p, q}). Components share
//     nothing: an object, a backing array or any memory reachable from two components is refused,
//     with both paths, because they are restored apart and a write through one would no longer be
//     seen through the other (send a copy, or refer to the object by an id). Two components on one
//     root are refused when the model is first captured. Pointers into the middle of another
//     object (a field, an element) are refused too.
//   - Capacity. A slice is its length, its spare capacity and its elements: capacity decides
//     whether append writes in place or copies, so it is state, and a slice is restored with exactly
//     the capacity Go gave it. Elements between length and capacity are not state (restored as
//     zero). Slices that share a backing array inside a component are captured as sharing it
//     (array mode, arrays.go): restored, they share one array again. A cmc:"set" slice is the
//     exception: its order and capacity are declared not to matter, and it is restored sorted
//     with room for one more element.
//   - Identity of globals. A pointer into a package-level variable (time.UTC is &utcLoc), or an error
//     value a package-level variable holds (a sentinel error), is captured as a reference to that
//     global, named by its type and contents, and restored to the very same object, so == and
//     errors.Is still hold (globals.go). Other heap objects a package-level variable points to are
//     captured as copies; the self-check reports it when their identity matters. Its contents are not state: handlers must
//     not change globals. A unique.Handle (net/netip.Addr's family and zone) is restored to the
//     interned value, so == between handles holds (handle.go).
//   - Functions. A func value naming a top-level function is captured by its name; a method value
//     bound to an object the component holds (r.tickElection) by the method and the object, and it
//     is restored bound to the restored object. Closures are refused: what they captured is
//     invisible (funcs.go). The model's own handlers are closures too, and must reach the state only
//     through component roots: a handler that captured part of a component keeps writing the
//     object a restore replaced. Canon cannot see that; the engine's self-check reports it.
//   - Map order. Map entries are ordered by the canonical encoding of their keys, so the order in
//     which a map was filled is not state. Go randomises iteration order, so a handler whose result
//     depends on it is nondeterministic; the engine's self-check reports that, rather than exploring
//     one order per run. Range over slices.Sorted(maps.Keys(m)) when order matters.
//   - pointers to zero-size values never alias (Go itself does not say whether they are equal). A
//     named pointer or map type and its unnamed twin refer to one object like any two references.
//   - chan, unsafe.Pointer and uintptr types, map types whose keys hold pointers (whatever the map
//     holds), pointers inside interface map keys (other than globals), and locked mutexes are
//     rejected with the path to the value and how to fix it.
//   - a struct field tagged `cmc:"-"` is not part of the state: it is neither hashed nor restored (a
//     root object keeps its current value there; objects recreated by Decode get the zero value).
//     A slice field tagged `cmc:"set"` is a multiset: its order and capacity do not matter, and
//     Decode restores it sorted by the canonical encoding of its elements, with room to append one
//     more without copying (two appends to one restored set share its array, as in Go whenever a
//     slice has spare capacity). Its element type must hold no pointers.
//     For types that cannot carry tags (a library's), a model declares the same as rules by type
//     and field name (rules.go; cmc.Model.Omit and Unordered).
//
// Every encoding begins, in effect, with Version: Hash mixes it in, so stored hashes from an older
// format never match. Plans are built once per type and are safe to share: Encoders on different
// goroutines may run at once (one Encoder is not safe for concurrent use).
package canon
