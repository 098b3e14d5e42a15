package transition

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/petermattis/goid"
)

// A Slot is where one engine machine runs user code: the Context of the handler it runs (found
// by the goroutine running it), a count of calls into user code for the worker's watchdog, and
// the handler run it began last, for tracing one that hangs. A machine's calls into user code
// come from one goroutine at a time; different slots' may run at once.
type Slot struct {
	g     atomic.Int64 // the goroutine running handlers with ctx; 0: none
	ctx   Context      // read only by the goroutine g names, which wrote it
	on    bool         // a handler runs with ctx; read and written only by the goroutine g names
	calls uintptr      // odd while user code runs on the slot; changed by every call (watched.go)
	run   [3]uintptr   // the state, the event and the attempt (watched.go)
	began atomic.Bool
	who   atomic.Int64 // the goroutine that began the run
	_     [48]byte     // 128 bytes in all: a slot has its cache lines to itself (engine/padded.go)
}

var (
	mu    sync.Mutex
	slots atomic.Pointer[[]*Slot] // replaced, never changed, so lookups take no lock
)

// Default is the slot of user code that runs outside a machine: a model's builder, the String
// methods the views call.
var Default = NewSlot()

// NewSlot makes a slot and registers it; Release it when its machine is done.
func NewSlot() *Slot {
	s := &Slot{}
	mu.Lock()
	defer mu.Unlock()
	var next []*Slot
	if old := slots.Load(); old != nil {
		next = append(next, *old...)
	}
	next = append(next, s)
	slots.Store(&next)
	return s
}

// Release unregisters s.
func (s *Slot) Release() {
	mu.Lock()
	defer mu.Unlock()
	old := *slots.Load()
	next := make([]*Slot, 0, len(old))
	for _, o := range old {
		if o != s {
			next = append(next, o)
		}
	}
	slots.Store(&next)
}

// Slots returns the registered slots.
func Slots() []*Slot {
	if p := slots.Load(); p != nil {
		return *p
	}
	return nil
}

// Set installs c as the context of the handler the calling goroutine runs on s (nil when it
// returns).
func (s *Slot) Set(c Context) {
	if c == nil {
		s.g.Store(0)
		s.ctx, s.on = nil, false // a machine's slot must not keep the machine reachable (its cleanup)
		return
	}
	s.ctx, s.on = c, true
	s.g.Store(gid())
}

// Start is Set(c) for a machine, which runs handler after handler with the same context on one
// goroutine: the goroutine is stored only when it changed (an atomic store is a full barrier on
// amd64, and this is done for every handler run), and Stop leaves c installed but found by no one.
// c must not keep the machine reachable (its cleanup releases the slot).
func (s *Slot) Start(c Context) {
	if g := gid(); s.g.Load() != g {
		s.g.Store(g)
	}
	s.ctx, s.on = c, true
}

// Stop ends the handler run Start began.
func (s *Slot) Stop() { s.on = false }

// lookup returns the context of the calling goroutine's handler run, or nil.
func lookup() Context {
	g := gid()
	for _, s := range Slots() {
		if s.g.Load() == g && s.on {
			return s.ctx
		}
	}
	return nil
}

// Calls returns s's counter: odd while user code runs, and changed by every call. A worker's
// watchdog reads it to tell a call that never returns from a long check or replay.
func (s *Slot) Calls() uintptr { return atomic.LoadUintptr(&s.calls) }

// Begin records the handler run s begins: the trail index of its state, the event and the
// attempt (engine.Position).
func (s *Slot) Begin(state int64, event, attempt int) {
	s.write(&s.run[0], uintptr(state))
	s.write(&s.run[1], uintptr(event))
	s.write(&s.run[2], uintptr(attempt))
	// An atomic store costs a full barrier on amd64: these seldom change.
	if g := gid(); s.who.Load() != g {
		s.who.Store(g)
	}
	if !s.began.Load() {
		s.began.Store(true)
	}
}

// Run returns the handler run s began last, if any. Read while the slot's user code hangs, it is
// the run that hangs (or, in an invariant or enabling condition, the run before it).
func (s *Slot) Run() (state int64, event, attempt int, ok bool) {
	return int64(atomic.LoadUintptr(&s.run[0])), int(atomic.LoadUintptr(&s.run[1])), int(atomic.LoadUintptr(&s.run[2])), s.began.Load()
}

// Goroutine is the id of the goroutine that began the slot's last handler run (0: none), which
// also runs the enabling conditions and invariants around it.
func (s *Slot) Goroutine() int64 { return s.who.Load() }

// Enter marks the start of a call into user code outside a machine; Leave its end.
func Enter() { Default.Enter() }

// Leave marks the end of a call into user code outside a machine.
func Leave() { Default.Leave() }

// gid identifies the calling goroutine. goid reads it from the runtime's goroutine structure,
// whose layout it knows per Go release; fast reports whether that agreed with the runtime's own
// account (a stack trace's first line) when the package started, and if not the slow, certain
// way is used.
func gid() int64 {
	if fast {
		return goid.Get()
	}
	return slowGid()
}

var fast = func() bool {
	if goid.Get() != slowGid() {
		return false
	}
	other := make(chan bool)
	go func() { other <- goid.Get() == slowGid() }()
	return <-other
}()

func slowGid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		b = b[:i]
	}
	n, _ := strconv.ParseInt(string(b), 10, 64)
	return n
}

// Install makes c the calling goroutine's transition context until done is called, outside any
// machine: for tests of code that calls cmc.Choose or cmc.Record (an environment component's).
func Install(c Context) (done func()) {
	s := NewSlot()
	s.Set(c)
	return func() {
		s.Set(nil)
		s.Release()
	}
}
