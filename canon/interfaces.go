package canon

import (
	"reflect"
	"unsafe"
)

// Decoding interface values without reflect.Value.Set. A Set into an interface checks that the
// dynamic type implements the interface (reflect.implements walks both method sets by name) on
// every call; etcd raft's nodes hold their Storage and Logger behind interfaces, and that check
// was a tenth of a check's time. An interface value is two words: the first names the dynamic
// type (an itab, or for interfaces without methods the type itself), the second holds the value,
// or points to a copy of it when the type is not pointer-shaped. Both are the same for every value
// of one dynamic type in one interface type, except the second word's target, so the decoder
// learns them once per (interface, dynamic type) and writes the two words itself.

// A dynType is what the decoder learned of one dynamic type inside one interface type.
type dynType struct {
	iface  reflect.Type
	name   string       // the dynamic type's stable name, as encoded
	t      reflect.Type // the dynamic type
	word   unsafe.Pointer
	direct bool // pointer-shaped: the value is the second word itself
}

// dynType returns what decoding a value named name into an interface of type iface needs,
// resolving the name and checking the type the first time.
func (d *decoder) dynType(iface reflect.Type, name []byte) *dynType {
	for i := range d.dyn {
		if dt := &d.dyn[i]; dt.iface == iface && dt.name == string(name) {
			return dt
		}
	}
	t, ok := types.Load(string(name))
	if !ok {
		d.fail("unknown dynamic type %q", name)
	}
	ct := t.(reflect.Type)
	if !ct.AssignableTo(iface) {
		d.fail("%s does not implement %s", ct, iface)
	}
	// The two words reflect writes for the zero value of ct: the first is the one every value of
	// ct has; the second is nil only when the type is pointer-shaped (otherwise it points to a
	// copy, which reflect always makes for an addressable value).
	box := reflect.New(iface)
	box.Elem().Set(reflect.New(ct).Elem())
	w := *(*[2]unsafe.Pointer)(box.UnsafePointer())
	d.dyn = append(d.dyn, dynType{iface: iface, name: string(name), t: ct, word: w[0], direct: w[1] == nil})
	return &d.dyn[len(d.dyn)-1]
}

// interfaceFast returns the decoding fast path of interface type t. Encoding stays on the reflect
// path (encInterface): it is cheap, and it must refuse a func value inside an interface, which is
// not addressable there.
func interfaceFast(t reflect.Type) fastDec {
	return func(d *decoder, p unsafe.Pointer) {
		n := d.uvarint()
		if n == 0 {
			*(*[2]unsafe.Pointer)(p) = [2]unsafe.Pointer{}
			return
		}
		dt := d.dynType(t, d.take(n-1))
		plan := d.plans.get(dt.t)
		var data unsafe.Pointer
		if dt.direct {
			// A pointer-shaped value decodes to one word, and decoding it does not decode another
			// interface (it is a reference, resolved later), so the decoder's word serves.
			d.word = nil
			plan.fastDec(d, unsafe.Pointer(&d.word))
			data, d.word = d.word, nil
		} else {
			data = reflect.New(dt.t).UnsafePointer()
			plan.fastDec(d, data)
		}
		*(*[2]unsafe.Pointer)(p) = [2]unsafe.Pointer{dt.word, data}
	}
}
