package engine

import (
	"syscall"
	"unsafe"
)

// releaseOffHeap gives the memory of the whole pages inside s back to the system, as freeOffHeap
// would, but keeps the mapping: s reads as zeros afterwards. For a slice make made, that zeroes
// whole pages of its own array, which the caller no longer needs either. Elsewhere than Linux it
// does nothing (release_other.go): the memory is given back when the mapping is freed.
func releaseOffHeap[T any](s []T) {
	var zero T
	size := uintptr(len(s)) * unsafe.Sizeof(zero)
	if size == 0 {
		return
	}
	page := uintptr(syscall.Getpagesize())
	p := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(p)
	first, end := (start+page-1)&^(page-1), (start+size)&^(page-1)
	if first >= end {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, first-start)), end-first), syscall.MADV_DONTNEED)
}

// hugePages asks Linux to back s, a table probed at random, with 2 MiB pages: once it is far larger
// than the caches, every probe is a miss to memory, and with 4 KiB pages most are a TLB miss too
// (a page walk). TwoPhase RM=9 depth-first on one goroutine (a 128 MiB table), alternated: 26.9,
// 24.8, 24.5 s without, 25.8, 23.7, 24.0 s with. Transparent huge pages must be on ("madvise" or
// "always" in /sys/kernel/mm/transparent_hugepage/enabled); otherwise this does nothing.
func hugePages[T any](s []T) {
	var zero T
	if size := uintptr(len(s)) * unsafe.Sizeof(zero); size >= 4<<20 {
		_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size), syscall.MADV_HUGEPAGE)
	}
}
