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
