package canon

import (
	"reflect"
	"unsafe"
)

// mapIter walks a map's entries and gives, for each, pointers to its key and value where the map
// holds them. reflect.MapIter's SetIterKey and SetIterValue would copy each entry out, through
// reflect, at about twice the cost of the walk itself (in etcd raft's captures).
//
// The pointers are the first two words of the runtime's iterator, where the compiler's range loops
// read them, which reflect.MapIter holds after its map Value (iterWords). Should a Go release lay
// MapIter out otherwise, the runtime's iterator for linked packages is used instead (linked: the
// runtime keeps it for them, see its comments on mapiterinit), which allocates at each start.
type mapIter struct {
	r         reflect.MapIter
	linked    linkedIter
	key, elem unsafe.Pointer // the entry; key is nil after the last
}

// linkedIter is the runtime's linknameIter: the entry, then the map's type and the runtime's own
// iterator, which the collector must see as pointers.
type linkedIter struct {
	key, elem unsafe.Pointer
	_         [2]unsafe.Pointer
}

// start begins a walk of map m (a map Value) at its first entry.
func (it *mapIter) start(m reflect.Value) {
	if iterWords == 0 {
		mapiterinit(rtypeOf(m.Type()), m.UnsafePointer(), &it.linked)
		it.key, it.elem = it.linked.key, it.linked.elem
		return
	}
	it.r.Reset(m)
	it.next()
}

// next moves to the next entry.
func (it *mapIter) next() {
	if iterWords == 0 {
		mapiternext(&it.linked)
		it.key, it.elem = it.linked.key, it.linked.elem
		return
	}
	if it.r.Next() {
		w := (*[2]unsafe.Pointer)(unsafe.Add(unsafe.Pointer(&it.r), iterWords))
		it.key, it.elem = w[0], w[1]
	} else {
		it.key, it.elem = nil, nil
	}
}

// done lets go of the map.
func (it *mapIter) done() {
	it.r.Reset(reflect.Value{})
	it.linked, it.key, it.elem = linkedIter{}, nil, nil
}

// iterWords is where reflect.MapIter holds the current entry's key and value pointers, 0 if not
// after its map Value: found by walking a map of one entry both ways and comparing the pointers,
// without reading through them.
var iterWords = func() uintptr {
	m := reflect.ValueOf(map[int]int{1: 2})
	var l linkedIter
	mapiterinit(rtypeOf(m.Type()), m.UnsafePointer(), &l)
	var r reflect.MapIter
	r.Reset(m)
	r.Next()
	off := unsafe.Sizeof(reflect.Value{})
	if unsafe.Sizeof(r) < off+2*unsafe.Sizeof(uintptr(0)) {
		return 0
	}
	if w := (*[2]unsafe.Pointer)(unsafe.Add(unsafe.Pointer(&r), off)); w[0] != l.key || w[1] != l.elem || l.key == nil {
		return 0
	}
	return off
}()

//go:linkname mapiterinit reflect.mapiterinit
func mapiterinit(typ, m unsafe.Pointer, it *linkedIter)

//go:linkname mapiternext reflect.mapiternext
func mapiternext(it *linkedIter)

// maplen returns how many entries map m holds.
//
//go:linkname maplen reflect.maplen
func maplen(m unsafe.Pointer) int
