// Package transition connects the checked code's calls (cmc.Choose, cmc.ChooseOf, cmc.Assert, cmc.Note) to the engine
// running the current transition. It exists so the public API package need not import the engine.
//
// One transition runs at a time in a process: the engine holds Lock while it runs user code, so the
// package-level context is never shared between two runs.
package transition

import (
	"fmt"
	"sync"
)

// A Context is what the engine provides while a transition runs.
type Context interface {
	// Choose returns the value of the next choice point, which has n options; pc is the caller.
	Choose(n int, pc uintptr) int
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

// Lock serialises all runs of user code in this process.
var Lock sync.Mutex

var current Context

// Set installs c as the running transition's context (nil between transitions).
func Set(c Context) { current = c }

// Current returns the context, or panics with a clear message outside a transition.
func Current(what string) Context {
	if current == nil {
		panic(Misuse{fmt.Sprintf("cmc.%s called outside a transition: call it only from event handlers (and the code they call), not from model setup, invariants or enabling conditions", what)})
	}
	return current
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
