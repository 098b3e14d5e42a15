package canon

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Globals. A program's state points at things that are not part of it: a sentinel error
// (err = ErrTimeout, so errors.Is finds it), time.UTC, a package-level default. Go compares these
// by identity, so a restored copy would no longer be the same error. A pointer into a
// package-level variable, or an error value a package-level variable holds, is therefore captured
// as a reference to a global and restored to the very same object. (Other heap objects that a
// package-level variable points to are copied: the runtime's own variables hold heap addresses
// too, so sitting where one points proves nothing. The self-check reports it if identity matters.)
//
// A global is named by its type and its canonical contents, not by its address or its symbol (go
// test and go run strip the symbol table), so states hash the same in every process and binary.
// Two different globals of one type with equal contents cannot be told apart that way, and are
// refused when a state holds both. A global whose contents reach objects that are not globals is
// captured as an ordinary object (a copy); the self-check reports it if that matters.
//
// Where globals are is read once from the executable's section headers (ELF: Linux; elsewhere
// no pointer is a global, and such pointers are copied).

type globalTable struct {
	data    []memRange          // .data, .bss, .noptrdata and .noptrbss, as mapped
	span    memRange            // from the first of them to the end of the last
	targets map[uintptr]uintptr // what words of .data and .bss pointed to -> the word's address
	byKey   sync.Map            // key -> unsafe.Pointer: the global each key was made from
	anchor  unsafe.Pointer      // &globalAnchor, from which pointers into the data are derived
	base    uintptr             // its address
}

type memRange struct{ start, end uintptr }

var (
	globalsOnce sync.Once
	globals     *globalTable
	// globalAnchor is a variable of ours in the data segment: its address checks the mapping,
	// and pointers into the data segment are derived from it.
	globalAnchor byte
)

func globalsTable() *globalTable {
	globalsOnce.Do(func() { globals = readGlobals() })
	return globals
}

// isGlobal reports whether ptr points into a package-level variable, or is an error a
// package-level variable holds (a sentinel error; isError: its pointer type is an error). Only
// errors: the runtime's own variables hold addresses of heap memory too, so an object that merely
// sits where such a word points is not a global; an error value is never one of those words by
// chance and always meant by identity.
func (g *globalTable) isGlobal(ptr unsafe.Pointer, isError bool) bool {
	if g == nil {
		return false
	}
	if g.has(uintptr(ptr)) {
		return true
	}
	if !isError {
		return false
	}
	// The word must still point there: the object it pointed to when the table was read may have
	// been freed, and the address reused.
	slot, ok := g.targets[uintptr(ptr)]
	return ok && *(*uintptr)(unsafe.Add(g.anchor, slot-g.base)) == uintptr(ptr)
}

var errorType = reflect.TypeFor[error]()

// globalKey names the global at ptr (a *T, or a map) by its type and contents: "" when its
// contents reach an object that is not a global. It fails when another global already has the key.
func (e *encoder) globalKey(t reflect.Type, ptr unsafe.Pointer) string {
	if k, ok := e.globalKeys[uintptr(ptr)]; ok {
		return k
	}
	if t.Kind() != reflect.Pointer || e.depth > 3 {
		return "" // a map's contents would go through the map itself; a deep chain is not a name
	}
	e.globalKeys[uintptr(ptr)] = "" // a global that reaches itself is not named by its contents
	if e.sub == nil {
		e.sub = &Encoder{}
		e.sub.e.depth = e.depth + 1
	}
	b, err := e.sub.encodeInline(nil, reflect.NewAt(t.Elem(), ptr).Elem())
	if err != nil {
		return ""
	}
	k := typeName(t) + "=" + string(b)
	if prev, loaded := e.glob.byKey.LoadOrStore(k, ptr); loaded && prev.(unsafe.Pointer) != ptr {
		e.fail("two package-level values of type %s have the same contents, and the state holds both: they cannot be told apart by their contents; make them differ (a different error message)", t)
	}
	e.globalKeys[uintptr(ptr)] = k
	return k
}

// pointer resolves a key this process made.
func (g *globalTable) pointer(key string) (unsafe.Pointer, bool) {
	if g == nil {
		return nil, false
	}
	p, ok := g.byKey.Load(key)
	if !ok {
		return nil, false
	}
	return p.(unsafe.Pointer), true
}

// readGlobals reads every word of the data sections at its address relative to globalAnchor,
// across sections, which the race detector's pointer checks (checkptr) would take for arithmetic
// leaving an allocation: go:nocheckptr exempts this function alone.
//
//go:nocheckptr
func readGlobals() *globalTable {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	f, err := elf.Open(exe)
	if err != nil {
		return nil
	}
	defer f.Close()
	slide := uintptr(0)
	if f.Type == elf.ET_DYN { // position-independent: find where it was mapped
		if slide, err = loadSlide(exe, f); err != nil {
			return nil
		}
	}
	g := &globalTable{targets: map[uintptr]uintptr{}, anchor: unsafe.Pointer(&globalAnchor)}
	g.base = uintptr(g.anchor)
	var pointerful []memRange
	for _, s := range f.Sections {
		switch s.Name {
		case ".data", ".bss", ".noptrdata", ".noptrbss":
		default:
			continue
		}
		r := memRange{uintptr(s.Addr) + slide, uintptr(s.Addr+s.Size) + slide}
		if len(g.data) == 0 {
			g.span = r
		}
		g.span = memRange{min(g.span.start, r.start), max(g.span.end, r.end)}
		g.data = append(g.data, r)
		if s.Name == ".data" || s.Name == ".bss" {
			pointerful = append(pointerful, r)
		}
	}
	if !g.has(g.base) {
		return nil // the sections are not where this process has its variables
	}
	const word = unsafe.Sizeof(uintptr(0))
	for _, r := range pointerful {
		for a := (r.start + word - 1) &^ (word - 1); a+word <= r.end; a += word {
			// Read as a number: a word of a pointerful section may hold an integer.
			if p := *(*uintptr)(unsafe.Add(g.anchor, a-g.base)); p != 0 && !g.has(p) {
				g.targets[p] = a
			}
		}
	}
	return g
}

// has reports whether a is in the data sections. Most pointers a capture meets are into the heap,
// far from them: one comparison with the sections' span answers for those (etcd raft: the loop
// over the sections was 2.2% of a search's instructions).
func (g *globalTable) has(a uintptr) bool {
	if a < g.span.start || a >= g.span.end {
		return false
	}
	for _, r := range g.data {
		if a >= r.start && a < r.end {
			return true
		}
	}
	return false
}

// loadSlide finds how far a position-independent executable was moved when it was loaded, from
// the first mapping of its file in /proc/self/maps.
func loadSlide(exe string, f *elf.File) (uintptr, error) {
	var low uint64 = ^uint64(0)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Off == 0 {
			low = min(low, p.Vaddr)
		}
	}
	m, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	defer m.Close()
	sc := bufio.NewScanner(m)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || fields[2] != "00000000" {
			continue
		}
		start, err := strconv.ParseUint(strings.SplitN(fields[0], "-", 2)[0], 16, 64)
		if err != nil || low == ^uint64(0) {
			return 0, fmt.Errorf("bad mapping %q", sc.Text())
		}
		return uintptr(start - low), nil
	}
	return 0, fmt.Errorf("%s is not mapped", exe)
}
