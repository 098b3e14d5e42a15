//go:build !linux

package engine

// yieldThread does nothing where the kernel's yield is not at hand (yield_linux.go).
func yieldThread() {}
