package engine

import "unsafe"

// prefetch asks the CPU to bring the cache line at p in, without waiting for it.
//
//go:noescape
func prefetch(p unsafe.Pointer)
