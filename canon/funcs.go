package canon

import (
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// Function values. Real code keeps them in its state: etcd raft's step (a top-level function) and
// tick (a method value bound to the raft object itself). A func value is captured by what it
// names:
//   - a top-level function or a method expression: its name, restored to the same function;
//   - a method value on a pointer receiver that the state holds (r.tickElection): the method's
//     name and a reference to the receiver, restored bound to the receiver's restored copy.
//
// A closure is refused: the variables it captured are invisible to the checker. So is a method
// value on a value receiver (it holds a copy) or on an object outside the state.

// A funcval is what a func value points to: the code, then whatever the closure holds. A method
// value on a pointer receiver holds that pointer.
type methodValue struct {
	fn   uintptr
	recv unsafe.Pointer
}

// funcs maps the names captured func values had to what restores them: a *funcval (unsafe.Pointer)
// for a top-level function, the code address (uintptr) of a method value's wrapper.
var funcs sync.Map

var closureName = regexp.MustCompile(`\.(func|gowrap|deferwrap)\d+(\.\d+)*$`)

// funcNames caches funcName by code address: states hold the same few functions over and over.
var funcNames sync.Map // uintptr -> funcInfo

type funcInfo struct {
	name    string
	closure bool
}

// funcName returns the name of the function at code, and whether it is a closure.
func funcName(code uintptr) (string, bool) {
	if f, ok := funcNames.Load(code); ok {
		return f.(funcInfo).name, f.(funcInfo).closure
	}
	fn := runtime.FuncForPC(code)
	if fn == nil {
		return "", false
	}
	f := funcInfo{name: fn.Name(), closure: closureName.MatchString(fn.Name())}
	funcNames.Store(code, f)
	return f.name, f.closure
}

func buildFunc(p *plan) {
	t := p.t
	p.min = 1
	p.enc = func(e *encoder, v reflect.Value) {
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return
		}
		if !v.CanAddr() {
			e.fail("%s inside an interface cannot be captured: keep func values in fields of their own type", t)
		}
		fv := *(*unsafe.Pointer)(unsafe.Pointer(v.UnsafeAddr()))
		f := e.funcFor(*(*uintptr)(fv))
		name := f.name
		if name == "" {
			e.fail("%s: a func value with no name cannot be captured", t)
		}
		switch {
		case f.closure:
			e.fail("%s is a closure (%s): the variables it captured are invisible to the checker; use a top-level function, or a method value of an object the state holds (x.method), or tag the field cmc:\"-\"", t, name)
		case f.method && !f.pointer:
			e.fail("%s is a method value on a value receiver (%s): it holds a copy the checker cannot see; take the method of a pointer", t, strings.TrimSuffix(name, "-fm"))
		case f.method:
			recv := (*methodValue)(fv).recv
			n, ok := e.seen.get(uintptr(recv))
			if !ok || n <= e.base {
				e.fail("%s is the method value %s of an object the state did not reach before it: bind methods of objects the state holds, such as the object that holds the field", t, strings.TrimSuffix(name, "-fm"))
			}
			if !f.stored {
				funcs.LoadOrStore(name, f.code)
				f.stored = true
			}
			e.buf = append(e.buf, 2)
			e.str(name)
			e.uvarint(uint64(n - e.base))
		default:
			if !f.stored {
				funcs.LoadOrStore(name, fv)
				f.stored = true
			}
			e.buf = append(e.buf, 1)
			e.str(name)
		}
	}
	p.dec = func(d *decoder, v reflect.Value) {
		tag := d.byte()
		if tag == 0 {
			v.SetZero()
			return
		}
		name, f := d.funcNamed(d.take(d.uvarint()))
		var fv unsafe.Pointer
		switch tag {
		case 1:
			fv = f.(unsafe.Pointer)
		case 2:
			n := d.uvarint()
			if n == 0 || n > uint64(len(d.objs)) {
				d.fail("method value %s bound to object %d of %d", name, n, len(d.objs))
			}
			recv := d.objs[n-1].v
			if recv.Kind() != reflect.Pointer {
				d.fail("method value %s bound to a %s", name, recv.Type())
			}
			fv = unsafe.Pointer(&methodValue{fn: f.(uintptr), recv: recv.UnsafePointer()})
		default:
			d.fail("bad func tag %d", tag)
		}
		*(*unsafe.Pointer)(unsafe.Pointer(v.UnsafeAddr())) = fv
	}
}

func (e *encoder) str(s string) {
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// A funcSeen is what an encoder learned of the function at one code address: its name, and
// whether funcs can already restore it. Encoders and decoders keep the few functions a state
// holds, so a capture or restore asks no process-wide table.
type funcSeen struct {
	code                     uintptr
	name                     string
	closure, method, pointer bool // a closure; a method value (-fm); on a pointer receiver
	stored                   bool // entered in funcs
}

func (e *encoder) funcFor(code uintptr) *funcSeen {
	for i := range e.funcs {
		if e.funcs[i].code == code {
			return &e.funcs[i]
		}
	}
	name, closure := funcName(code)
	method := strings.HasSuffix(name, "-fm")
	e.funcs = append(e.funcs, funcSeen{code: code, name: name, closure: closure, method: method,
		pointer: method && strings.Contains(name, ".(*")})
	return &e.funcs[len(e.funcs)-1]
}

// A funcFound is what restores the func value captured under name (funcs).
type funcFound struct {
	name string
	f    any
}

func (d *decoder) funcNamed(name []byte) (string, any) {
	for _, f := range d.funcs {
		if f.name == string(name) {
			return f.name, f.f
		}
	}
	f, ok := funcs.Load(string(name))
	if !ok {
		d.fail("func %s was never captured in this process", name)
	}
	d.funcs = append(d.funcs, funcFound{name: string(name), f: f})
	return string(name), f
}
