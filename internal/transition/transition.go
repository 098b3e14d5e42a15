// Package transition connects the checked code's calls (cmc.Choose, cmc.ChooseOf, cmc.Assert, cmc.Note) to the engine
// running the current transition. It exists so the public API package need not import the engine.
//
// Several transitions may run at once in a process (the workers of a parallel search, each on its
// own instance of the model), so the running transition is found by the goroutine that asks: each
// engine machine has a Slot, installs its Context there for the length of a handler run, and
// cmc.Choose looks for the slot of the calling goroutine (slot.go).
package transition

import (
	"fmt"
	"sync"
)

// A Context is what the engine provides while a transition runs.
type Context interface {
	// Choose returns the value of the next choice point, which has n options; pc is the caller,
	// or 0 when Sites is false.
	Choose(n int, pc uintptr) int
	// Sites reports whether Choose needs its caller's pc: traces, replays and self-checks name
	// each choice's line, a search's own runs need only the values.
	Sites() bool
	// Noting reports whether notes are being recorded (replay) or dropped (search).
	Noting() bool
	// Label names the value the last Choose returned, for traces; called only while Noting.
	Label(label string)
	// Note records a fact about the current step for traces and views; it is not state.
	Note(n Note)
}

// A Note is a fact about a step the views show, such as a message sent or delivered.
type Note struct {
	Kind string `json:"kind"` // send, deliver, drop, dup, or anything the model likes
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	Msg  string `json:"msg,omitempty"`
}

// Lock is held by the machine of a search or replay from its start to its end: one model is
// checked at a time in a process (canon's rules for types without tags are per process). The
// workers of a parallel search run under their search's hold.
var Lock sync.Mutex

// Current returns the context of the transition the calling goroutine runs, or panics with a
// clear message outside one.
func Current(what string) Context {
	if c := lookup(); c != nil {
		return c
	}
	panic(Misuse{fmt.Sprintf("cmc.%s called outside a transition: call it only from event handlers (and the code they call on the handler's goroutine), not from model setup, invariants, enabling conditions or goroutines a handler starts", what)})
}

// Misuse is a panic value for API misuse by the model; the engine reports it as a model error.
type Misuse struct{ Msg string }

func (m Misuse) Error() string { return m.Msg }

// AssertionFailure is the panic value of a failed cmc.Assert.
type AssertionFailure struct {
	Msg string
	PC  uintptr
}

func (a *AssertionFailure) Error() string { return "assertion failed: " + a.Msg }
