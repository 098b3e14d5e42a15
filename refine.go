package cmc

import (
	"fmt"
	"slices"
)

// A Spec is a specification state machine, written from a standard's table (RFC 1661 section
// 4.1, say) as ordinary Go: a state, the events it reacts to, and for each state and event the
// moves it allows, each a set of actions and the state they lead to. It knows nothing of the
// implementation checked against it.
type Spec[S comparable] struct {
	// Name names the specification in messages and the component that holds its state, so it
	// must differ from every process and environment component of the model.
	Name string
	// Init is the state the specification starts in.
	Init S
	// Next lists the moves the specification allows from s when event happens. None: the event
	// is refused in s. It must not change anything.
	Next func(s S, event string) []Move[S]
	// Events lists the specification's events, for the debugger to show every move allowed
	// where a step is refused; nil: it shows the moves on the refused step's event.
	Events []string
	// Visible is the part of a state the implementation shows: it clears the specification's
	// private variables (a restart counter the implementation keeps differently, say). nil: the
	// implementation shows all of it.
	Visible func(S) S
}

// A Move is one transition the specification allows: the actions it takes, in any order (as RFC
// 1661 says of its table), and the state it reaches.
type Move[S comparable] struct {
	Actions []string
	To      S
}

// Observed is what one transition of the implementation shows the specification: the event it
// handled ("" when none) and the actions it took. A transition with neither is invisible.
type Observed struct {
	Event   string
	Actions []string
}

// An Observer says how to see the implementation as the specification: the projection of its
// state, and of each transition to an event and actions.
type Observer[S comparable] struct {
	// State is the specification state the implementation is in, as Spec.Visible shows it. ok is
	// false while the implementation is between two specification states (it takes one
	// specification step in several transitions): the events and actions of such a run of
	// transitions are held, and checked as one step with the transition that ends it (the
	// seed's NEXT: invisible transitions followed by a visible one are one step).
	State func() (s S, ok bool)
	// Step is what the transition that just ran showed. ev is the model's event that ran (of any
	// process). It runs after every transition.
	Step func(ev *Event) Observed
	// Witness gives the specification's private variables their values from the implementation,
	// once a move is chosen: it receives the move's state and returns it completed. nil: the
	// specification's own values are kept, taking the first move in Next's order that matches
	// (the eager witness: the specification moves as soon as the implementation does).
	Witness func(spec S) S
}

// Refines declares that the model's implementation refines spec as obs observes it: every
// transition shows a step spec allows from the state it is in (or shows nothing and changes
// nothing, a stutter). The engine checks it on every explored transition; a step spec does not
// allow is a violation of kind "refinement". The specification's state becomes part of the
// checked state, as a component named spec.Name, so its private variables are state too.
func Refines[S comparable](m *Model, spec Spec[S], obs Observer[S]) {
	switch {
	case spec.Next == nil:
		m.fail("refinement %s: the spec has no Next function: give the moves it allows from each state", spec.Name)
		return
	case obs.State == nil || obs.Step == nil:
		m.fail("refinement %s: the observer needs State (the projection of the implementation's state) and Step (what a transition showed)", spec.Name)
		return
	}
	held := &specState[S]{State: spec.Init}
	r := spec.Refinement()
	m.add(spec.Name, held, true) // the specification's state is checked state
	r.Get = func() (any, Observed) { return held.State, held.Pending }
	r.Set = func(s any, p Observed) {
		held.State = s.(S)
		held.Pending = Observed{Event: p.Event, Actions: slices.Clip(p.Actions)}
	}
	r.State = func() (any, bool) { s, ok := obs.State(); return s, ok }
	r.Step = obs.Step
	if obs.Witness != nil {
		r.Witness = func(s any) any { return obs.Witness(s.(S)) }
	}
	m.refinements = append(m.refinements, r)
}

// Refinement is the specification with its types erased, as the engine and log conformance
// (package conform) read it: only the fields that judge a step are set.
func (spec Spec[S]) Refinement() *Refinement {
	visible := spec.Visible
	if visible == nil {
		visible = func(s S) S { return s }
	}
	return &Refinement{
		Spec:   spec.Name,
		Init:   spec.Init,
		Events: spec.Events,
		Next: func(s any, event string) []SpecMove {
			var out []SpecMove
			for _, mv := range spec.Next(s.(S), event) {
				out = append(out, SpecMove{Actions: mv.Actions, To: mv.To})
			}
			return out
		},
		Visible: func(s any) any { return visible(s.(S)) },
		Name:    func(s any) string { return fmt.Sprint(s) },
	}
}

// specState is the component that holds a specification's state while it is checked: its state,
// and what a run of transitions between two specification states showed so far.
type specState[S comparable] struct {
	State   S
	Pending Observed
}

// A Refinement is a Spec and its Observer as the engine reads them, their types erased.
type Refinement struct {
	Spec    string
	Init    any
	Events  []string               // nil: not listed
	Get     func() (any, Observed) // the specification's live state and what is held
	Set     func(any, Observed)
	Next    func(s any, event string) []SpecMove
	Visible func(any) any
	State   func() (any, bool)
	Step    func(ev *Event) Observed
	Witness func(any) any // nil: keep the specification's values
	Name    func(any) string
}

// A SpecMove is a Move with its state's type erased.
type SpecMove struct {
	Actions []string
	To      any
}
