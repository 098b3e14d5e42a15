package worker

import (
	"encoding/binary"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/cmc-go/cmc/engine"
)

// position is where the worker publishes the handler run it is in, in a memory-mapped file, so
// the coordinator can read it after the process died from a fatal error or os.Exit, which no
// deferred code survives. It is written before every handler run of a search on one goroutine,
// and an atomic store is a full barrier on amd64, so a run costs one: the run goes into the half
// of the file not published, with plain stores, and then the last word says which half to read
// (a worker that dies halfway through leaves the half published before whole).
//
// The file is PositionSize bytes, five little-endian words: the state, then the event and attempt
// (32 bits each, event high), twice; then which of the two is the running transition (runA,
// runB), or none, or several.
type position struct {
	words *[5]int64
	local [5]int64
	half  int // the half the next run goes to
}

// PositionSize is the size of a position file.
const PositionSize = 40

// The last word's values.
const (
	none    = 0 // no transition of a check runs
	runA    = 1 // the first half names the one that runs
	several = 2 // the workers of a parallel search run several
	runB    = 3 // the second half names the one that runs
)

func openPosition(path string) *position {
	p := &position{}
	p.words = &p.local
	if path == "" {
		return p
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return p
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, PositionSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return p
	}
	p.words = (*[5]int64)(unsafe.Pointer(&b[0]))
	return p
}

func (p *position) set(state int64, event, attempt int) {
	h := p.half
	p.half ^= 1
	p.words[2*h] = state
	p.words[2*h+1] = int64(event)<<32 | int64(uint32(attempt))
	atomic.StoreInt64(&p.words[4], runA+2*int64(h))
}

// setConcurrent says whether the workers of a parallel search run several transitions at once
// (engine.Options.Concurrent): then no one position names the running transition.
func (p *position) setConcurrent(on bool) {
	if on {
		atomic.StoreInt64(&p.words[4], several)
	} else {
		atomic.StoreInt64(&p.words[4], none)
	}
}

// concurrent reports whether several transitions were running (setConcurrent).
func (p *position) concurrent() bool { return atomic.LoadInt64(&p.words[4]) == several }

// active reports whether a check publishes its transitions (one or several).
func (p *position) active() bool { return atomic.LoadInt64(&p.words[4]) != none }

// clear says no transition of a check is running (the worker is building a model, say).
func (p *position) clear() { atomic.StoreInt64(&p.words[4], none) }

// running reports whether a transition of a check was published since the last clear.
func (p *position) running() bool {
	w := atomic.LoadInt64(&p.words[4])
	return w == runA || w == runB
}

// get returns the running transition, if one is published.
func (p *position) get() (engine.Position, bool) {
	return runningAt(atomic.LoadInt64(&p.words[4]), func(i int) int64 { return atomic.LoadInt64(&p.words[i]) })
}

// runningAt decodes the transition the last word which names, reading the others with word.
func runningAt(which int64, word func(int) int64) (engine.Position, bool) {
	if which != runA && which != runB {
		return engine.Position{}, false
	}
	h := int(which-runA) / 2
	ea := word(2*h + 1)
	return engine.Position{State: word(2 * h), Event: int(int32(ea >> 32)), Attempt: int(int32(ea))}, true
}

// ReadPosition decodes a position file a worker left: the transition that was running, or
// whether the workers of a parallel search were running several (or neither: no transition ran).
func ReadPosition(b []byte) (pos engine.Position, running, concurrent bool) {
	if len(b) < PositionSize {
		return engine.Position{}, false, false
	}
	word := func(i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }
	pos, running = runningAt(word(4), word)
	return pos, running, word(4) == several
}
