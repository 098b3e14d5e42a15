package worker

import (
	"os"
	"runtime/debug"
)

// A search keeps little on the Go heap (the visited set, the trail and the frontier live off it,
// engine/offheap.go) and allocates mostly garbage: a handler that appends to a slice, which a
// restore gives no spare capacity, allocates a new array every time. With the default GOGC (a
// collection each time the heap doubles, from 4 MB) the collector ran a hundred times a second
// on TwoPhase, and while it marks, every pointer the search writes costs a barrier. So unless
// the user set GOGC, the worker lets the heap grow by gcRoom past its live data between
// collections, or by the live data itself once that is larger (GOGC 100). TwoPhase RM=9, GOGC 400
// against 100 (docs/performance.md): breadth-first 10-17% faster, depth-first 5%, for 25 MB more
// peak memory.
const gcRoom = 32 << 20

// gcPercent is the GOGC that lets a heap of live bytes grow by gcRoom, at least 100 and at most
// 1000.
func gcPercent(live uint64) int {
	if live == 0 || live >= gcRoom {
		return 100
	}
	return int(min(1000, 100*gcRoom/live))
}

// A gcTuner sets GOGC from the live heap the watchdog reads, unless the user set GOGC.
type gcTuner struct {
	off bool
	pct int // what it set last
}

func newGCTuner() *gcTuner { return &gcTuner{off: os.Getenv("GOGC") != "", pct: 100} }

// tune sets GOGC for live bytes of live data, when that differs from what it set by more than a
// quarter (setting it takes the heap's lock).
func (t *gcTuner) tune(live uint64) {
	if t.off {
		return
	}
	if p := gcPercent(live); 4*p > 5*t.pct || 5*p < 4*t.pct {
		t.pct = p
		debug.SetGCPercent(p)
	}
}
