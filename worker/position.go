package worker

import (
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// position is where the worker publishes the handler run it is in: three words in a memory-mapped
// file, so the coordinator can read them after the process died from a fatal error or os.Exit,
// which no deferred code survives. Writing it costs three stores per run.
type position struct {
	words *[4]int64 // state, event, attempt, valid
	local [4]int64
}

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
	b, err := syscall.Mmap(int(f.Fd()), 0, 32, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return p
	}
	p.words = (*[4]int64)(unsafe.Pointer(&b[0]))
	return p
}

func (p *position) set(state int64, event, attempt int) {
	atomic.StoreInt64(&p.words[3], 0)
	atomic.StoreInt64(&p.words[0], state)
	atomic.StoreInt64(&p.words[1], int64(event))
	atomic.StoreInt64(&p.words[2], int64(attempt))
	atomic.StoreInt64(&p.words[3], 1)
}

// setConcurrent says whether the workers of a parallel search run several transitions at once
// (engine.Options.Concurrent): then no one position names the running transition.
func (p *position) setConcurrent(on bool) {
	if on {
		atomic.StoreInt64(&p.words[3], several)
	} else {
		atomic.StoreInt64(&p.words[3], 0)
	}
}

// concurrent is the valid word's value while a parallel search's workers run.
const several = 2

// concurrent reports whether several transitions were running (setConcurrent).
func (p *position) concurrent() bool { return atomic.LoadInt64(&p.words[3]) == several }

// active reports whether a check publishes its transitions (one or several).
func (p *position) active() bool { return p.valid() || p.concurrent() }

// clear says no transition of a check is running (the worker is building a model, say).
func (p *position) clear() { atomic.StoreInt64(&p.words[3], 0) }

// valid reports whether a transition of a check was published since the last clear.
func (p *position) valid() bool { return atomic.LoadInt64(&p.words[3]) == 1 }

func (p *position) get() (state int64, event, attempt int) {
	return atomic.LoadInt64(&p.words[0]), int(atomic.LoadInt64(&p.words[1])), int(atomic.LoadInt64(&p.words[2]))
}
