//go:build !race

package transition

import "sync/atomic"

// A slot counts its calls into user code for the worker's watchdog, which reads the count on
// another goroutine. The machine's goroutine writes it with plain stores, not atomic adds: an
// atomic add is a full barrier on amd64, and there are two for each handler run (TwoPhase RM=8
// depth-first on one goroutine, alternated: 3.53, 3.53, 3.50 s with atomic adds, 3.38, 3.40, 3.36 s
// with plain stores). The watchdog's read races with them by the memory model's definition, but
// one that gives it a meaning: a read of a value no larger than a machine word observes some
// write that does not happen after it (https://go.dev/ref/mem, "Implementation Restrictions for
// Programs Containing Data Races"), and a count that has stopped changing is all the watchdog
// looks for. Under the race detector the adds are atomic (calls_race.go).

// Enter marks the start of a call into user code on s; Leave its end (also when it panics).
func (s *Slot) Enter() { s.calls++ }

// Leave marks the end of a call into user code on s.
func (s *Slot) Leave() { s.calls++ }

// Calls returns s's counter: odd while user code runs, and changed by every call. A worker's
// watchdog reads it to tell a call that never returns from a long check or replay.
func (s *Slot) Calls() uintptr { return atomic.LoadUintptr(&s.calls) }
