package broker

import (
	"runtime/debug"
	"sync"
)

// gcPercent is the GOGC of a process while it runs an embedded server. The server's heap is
// mostly the blocks of the run's stream it holds in memory (up to 8 MiB of bytes each, no
// pointers, so a collection costs little however many there are), and with the default of 100
// the process grew to twice what they hold before collecting. TwoPhase RM=8 in 4 partitions:
// cmcdap's peak RSS 491 MiB with 100, 310 MiB with 25 (274 MiB with 10), with no more CPU
// time in cmcdap that the measurement could tell (docs/performance.md "Several processes").
const gcPercent = 25

// gc counts the servers running in this process and keeps the GOGC they found.
var gc struct {
	sync.Mutex
	servers int
	before  int
}

// lowerGC sets GOGC to gcPercent while the first server runs, unless it is lower already (or
// off: the user's GOGC=off with a GOMEMLIMIT stays).
func lowerGC() {
	gc.Lock()
	defer gc.Unlock()
	if gc.servers++; gc.servers > 1 {
		return
	}
	gc.before = debug.SetGCPercent(gcPercent)
	if gc.before < gcPercent {
		debug.SetGCPercent(gc.before)
	}
}

// restoreGC sets GOGC back when the last server stops.
func restoreGC() {
	gc.Lock()
	defer gc.Unlock()
	if gc.servers--; gc.servers == 0 {
		debug.SetGCPercent(gc.before)
	}
}
