// Package cmc is what checked code and models import: Choose, ChooseOf and Assert for the code,
// and Model for the harness that turns ordinary Go code into a checked system.
//
// A model is a set of named processes (each a pointer to an ordinary Go value), environment
// components shared by them (a network, timers), the events each process handles, and invariants.
// The engine (package engine) runs each event handler to completion as one atomic transition,
// re-running it for every value of every Choose, and hashes the canonical state (package canon)
// after it.
//
// Choose(n) is a choice among n alternatives; ChooseOf(items, label) is one among items that also
// says, in traces and the debugger, what each alternative means ("deliver RREP C→A"). The labels
// cost nothing during a search: they are made only when a trace is recorded or replayed.
package cmc

import (
	"fmt"
	"runtime"

	"github.com/cmc-go/cmc/internal/transition"
)

// Choose returns a value in [0, n). The checker explores every value: it re-runs the transition
// for each. Each call's site (file:line) and result are recorded in traces. n must be at least 1.
func Choose(n int) int {
	if n < 1 {
		panic(transition.Misuse{Msg: fmt.Sprintf("cmc.Choose(%d): n must be at least 1", n)})
	}
	c := transition.Current("Choose")
	var pc [1]uintptr
	if c.Sites() {
		runtime.Callers(2, pc[:])
	}
	return c.Choose(n, pc[0])
}

// ChooseOf returns one of items: the checker explores every one, as Choose(len(items)) does, and
// the value of the call is the item's index. label names an item for people: a trace records
// label(item) with the choice, so the debugger shows "Choose → 0 of 2: deliver RREP C→A" where
// Choose shows "Choose → 0 of 2". label runs only when a trace is recorded or replayed, never
// during a search, so it may format freely; it must not change the state, and like everything a
// handler does it must give the same text for the same item every time. label may be nil.
// items must not be empty.
func ChooseOf[T any](items []T, label func(T) string) T {
	if len(items) == 0 {
		panic(transition.Misuse{Msg: "cmc.ChooseOf: no items to choose from: choose only when there is at least one"})
	}
	c := transition.Current("ChooseOf")
	var pc [1]uintptr
	if c.Sites() {
		runtime.Callers(2, pc[:])
	}
	item := items[c.Choose(len(items), pc[0])]
	if label != nil && c.Noting() {
		c.Label(label(item))
	}
	return item
}

// Assert reports a violation when cond is false. The transition stops there.
func Assert(cond bool, format string, args ...any) {
	if cond {
		return
	}
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	panic(&transition.AssertionFailure{Msg: fmt.Sprintf(format, args...), PC: pc[0]})
}

// A Note is a fact about a step the views show (a message sent, delivered, dropped or
// duplicated). Notes are not state.
type Note = transition.Note

// Noting reports whether notes are recorded now. Build a note's text only when it is: during a
// search notes are dropped, and formatting them would cost time.
func Noting() bool { return transition.Current("Noting").Noting() }

// Record records a note about the current step.
func Record(n Note) {
	if c := transition.Current("Record"); c.Noting() {
		c.Note(n)
	}
}
