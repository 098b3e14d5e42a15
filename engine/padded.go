package engine

import "unsafe"

// The machines of a parallel search (parallel.go, forked.go) are built one after another on the
// search's goroutine, so the allocator puts their small arrays side by side, and two machines
// that each write their own array every transition then write one cache line from two cores,
// which moves between them at every write (false sharing). A machine's arrays written per
// transition are padded by a cache line on each side, and the structs written per run are a
// whole number of lines (runCtx, bfsWorker, transition.Slot). TwoPhase RM=8 breadth-first on
// two workers, five rounds alternated, sorted: 2.17, 2.27, 2.37, 2.91, 3.18 s unpadded; 2.14,
// 2.19, 2.29, 2.57, 2.96 s with the structs padded; 2.21, 2.21, 2.22, 2.57, 2.74 s with the arrays
// too (medians 2.37, 2.29, 2.22 s: a trend within this machine's noise).

// cacheLine is a cache line's size on the processors the search runs on (64 bytes on amd64 and
// most arm64; 128 on Apple's, where this halves the effect).
const cacheLine = 64

// A cacheLinePad keeps the fields on either side of it off each other's cache line.
type cacheLinePad [cacheLine]byte

// padded returns a slice of n zero values whose array shares no cache line with other objects.
func padded[T any](n int) []T {
	var zero T
	p := (cacheLine + int(unsafe.Sizeof(zero)) - 1) / max(int(unsafe.Sizeof(zero)), 1)
	return make([]T, n+2*p)[p : p+n : p+n]
}
