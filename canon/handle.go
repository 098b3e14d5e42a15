package canon

import (
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/cmc-go/cmc/internal/faults"
)

// unique.Handle[T] is compared by the pointer it holds, and unique.Make returns the same pointer for
// equal values: net/netip.Addr keeps its family and zone that way. A handle is therefore captured
// as the value it stands for, and restored to the handle this process made for that value, so ==
// between handles (and between netip.Addrs) still holds after a restore. Holding the pointer in the
// plan's table also keeps the value alive, so unique.Make keeps returning it.

var handleTables sync.Map // reflect.Type -> *sync.Map

// isHandle reports whether t is an instance of unique.Handle.
func isHandle(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == "unique" && strings.HasPrefix(t.Name(), "Handle[") &&
		t.NumField() == 1 && t.Field(0).Type.Kind() == reflect.Pointer
}

func buildHandle(p *plan) {
	elem := p.t.Field(0).Type.Elem()
	// canonical bytes of the value -> the handle's pointer, kept across rebuilds of the plan (SetRules)
	h, _ := handleTables.LoadOrStore(p.t, &sync.Map{})
	handles := h.(*sync.Map)
	plain := &plan{t: p.t, name: p.name} // a struct holding a pointer, for faults.NoHandles
	buildStruct(plain)
	p.min = 1
	p.enc = func(e *encoder, v reflect.Value) {
		if faults.NoHandles {
			plain.enc(e, v)
			return
		}
		ptr := v.Field(0).UnsafePointer()
		if ptr == nil {
			e.buf = append(e.buf, 0)
			return
		}
		if e.sub == nil {
			e.sub = &Encoder{}
			e.sub.e.depth = e.depth + 1
		}
		b, err := e.sub.encodeInline(nil, reflect.NewAt(elem, ptr).Elem())
		if err != nil {
			e.fail("%s holds a value that cannot be captured: %s", p.t, err.(*Error).Reason)
		}
		handles.LoadOrStore(string(b), ptr)
		e.uvarint(uint64(len(b)) + 1)
		e.buf = append(e.buf, b...)
	}
	p.dec = func(d *decoder, v reflect.Value) {
		if faults.NoHandles {
			plain.dec(d, v)
			return
		}
		n := d.uvarint()
		if n == 0 {
			v.SetZero()
			return
		}
		b := d.take(n - 1)
		ptr, ok := handles.Load(string(b))
		if !ok {
			d.fail("%s for a value this process never captured", p.t)
		}
		*(*unsafe.Pointer)(unsafe.Pointer(v.UnsafeAddr())) = ptr.(unsafe.Pointer)
	}
}
