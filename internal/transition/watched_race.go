//go:build race

package transition

import "sync/atomic"

// Under the race detector what the watchdog reads of a slot is written atomically (watched.go).

// Enter marks the start of a call into user code on s; Leave its end (also when it panics).
func (s *Slot) Enter() { atomic.AddUintptr(&s.calls, 1) }

// Leave marks the end of a call into user code on s.
func (s *Slot) Leave() { atomic.AddUintptr(&s.calls, 1) }

// write stores v at p, which the watchdog reads (Run).
func (s *Slot) write(p *uintptr, v uintptr) { atomic.StoreUintptr(p, v) }
