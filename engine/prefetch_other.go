//go:build !amd64

package engine

import "unsafe"

// prefetch does nothing here: only amd64 has the instruction written for it (prefetch_amd64.s).
func prefetch(p unsafe.Pointer) {}
