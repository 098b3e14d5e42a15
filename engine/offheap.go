//go:build unix

package engine

import (
	"syscall"
	"unsafe"
)

// The large tables of a search (the visited set, the trail) hold no pointers and live as long as
// the search. Kept off the Go heap, in anonymous memory mappings, they do not count towards the
// heap the garbage collector lets grow to twice what is live (GOGC): at 10 million states that
// was hundreds of megabytes of RSS for nothing. The memory is freed when the search ends.

// appendOff appends to a slice whose array is off the heap, moving it to a mapping twice as large
// when it is full.
func appendOff[T any](s []T, v ...T) []T {
	if len(s)+len(v) > cap(s) {
		n := offHeap[T](max(2*cap(s), len(s)+len(v), 1024))
		copy(n, s)
		freeOffHeap(s)
		s = n[:len(s)]
	}
	return append(s, v...)
}

// offHeap returns a zeroed slice of n values of a pointer-free type T outside the Go heap, or one
// made by make when the mapping fails.
func offHeap[T any](n int) []T {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size == 0 {
		return make([]T, n)
	}
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]T, n)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// freeOffHeap releases a slice offHeap returned; s must not be used afterwards. A slice make made
// is left to the garbage collector.
func freeOffHeap[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	var zero T
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:1]))), cap(s)*int(unsafe.Sizeof(zero)))
	_ = syscall.Munmap(b) // fails (EINVAL) for memory make allocated, which is what it should skip
}
