//go:build !race

package transition

// What the worker's watchdog reads of a slot on another goroutine (the count of calls into user
// code, the run that began last) the machine's goroutine writes with plain stores, not atomic
// ones: an atomic store or add is a full barrier on amd64, and there were three for each handler
// run (TwoPhase RM=8 depth-first on one goroutine, alternated: 3.53, 3.53, 3.50 s with atomic
// adds for the count, 3.38, 3.40, 3.36 s with plain stores). The watchdog's reads race with them
// by the memory model's definition, but races it gives a meaning: a read of a value no larger
// than a machine word observes some write that does not happen after it
// (https://go.dev/ref/mem, "Implementation Restrictions for Programs Containing Data Races").
// A count that has stopped changing is all the watchdog looks for, and it reads the run only
// then, when the goroutine that writes it is stuck in user code. Under the race detector they are
// atomic (watched_race.go).

// Enter marks the start of a call into user code on s; Leave its end (also when it panics).
func (s *Slot) Enter() { s.calls++ }

// Leave marks the end of a call into user code on s.
func (s *Slot) Leave() { s.calls++ }

// write stores v at p, which the watchdog reads (Run).
func (s *Slot) write(p *uintptr, v uintptr) { *p = v }
