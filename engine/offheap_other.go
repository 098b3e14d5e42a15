//go:build !unix

package engine

// Without mappings, the tables are ordinary slices (see offheap.go).

func offHeap[T any](n int) []T { return make([]T, n) }

func freeOffHeap[T any](s []T) {}

func appendOff[T any](s []T, v ...T) []T { return append(s, v...) }
