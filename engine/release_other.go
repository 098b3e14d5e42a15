//go:build !linux

package engine

// releaseOffHeap does nothing here (release_linux.go): the memory is given back when the
// mapping is freed.
func releaseOffHeap[T any](s []T) {}

// hugePages does nothing here (release_linux.go).
func hugePages[T any](s []T) {}
