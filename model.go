package cmc

import (
	"fmt"
	"reflect"
	"runtime"

	"github.com/cmc-go/cmc/canon"
)

// A Model is a checked system: processes, environment components, events and properties. Build
// one in a function registered with Register; the engine builds a fresh Model for every run, so
// handlers may capture the roots they act on.
type Model struct {
	name        string
	comps       []*Component
	events      []*Event
	invariants  []Property
	stepChecks  []stepCheck
	constraints []Property
	deadlock    bool
	rules       []canon.Rule
	bounds      []Bound
	seen        *ValuesSeen
	scores      []func() int
	abstract    func() any
	scenarios   []Scenario
	refinements []*Refinement
	err         error
	used        bool
}

// A Component is one part of the state: a process or an environment component (network, timers).
type Component struct {
	Name   string
	Root   reflect.Value // a non-nil pointer; the state is everything reachable from it
	Shared bool          // environment: every event may change it
}

// An Event is one handler of one process: a transition, when enabled.
type Event struct {
	Proc    string
	Name    string
	Label   string      // Proc.Name
	Comp    int         // index of the process's component
	Touches []int       // components the handler may change
	Enabled func() bool // nil: always enabled
	Handler func()      // runs to completion as one transition
	File    string      // where the handler is defined
	Line    int
}

// A Property is a named check over the whole state.
type Property struct {
	Name  string
	Check func() error
}

type stepCheck struct {
	name    string
	capture func() any
	check   func(before, after any) error
}

// NewModel starts a model.
func NewModel(name string) *Model { return &Model{name: name} }

// Name returns the model's name.
func (m *Model) Name() string { return m.name }

// A Proc declares the events of one process.
type Proc struct {
	m    *Model
	comp int
}

// Process adds a process whose state is everything reachable from root, a non-nil pointer.
func (m *Model) Process(name string, root any) *Proc {
	return &Proc{m: m, comp: m.add(name, root, false)}
}

// Environment adds a component shared by all processes, such as a network: every event may
// change it, so it is captured after every transition.
func (m *Model) Environment(name string, root any) {
	m.add(name, root, true)
}

func (m *Model) add(name string, root any, shared bool) int {
	v := reflect.ValueOf(root)
	switch {
	case name == "":
		m.fail("a process or environment needs a name")
	case v.Kind() != reflect.Pointer || v.IsNil():
		m.fail("%s: the state root must be a non-nil pointer, not %T", name, root)
	}
	for _, c := range m.comps {
		if c.Name == name {
			m.fail("%s: two components with the same name", name)
		}
	}
	m.comps = append(m.comps, &Component{Name: name, Root: v, Shared: shared})
	return len(m.comps) - 1
}

func (m *Model) fail(format string, args ...any) {
	if m.err == nil {
		m.err = fmt.Errorf("model %s: "+format, append([]any{m.name}, args...)...)
	}
}

// An Option refines an event.
type Option func(*Event, *Model)

// When makes an event enabled only when cond holds. cond must not change the state.
func When(cond func() bool) Option { return func(e *Event, _ *Model) { e.Enabled = cond } }

// Touches declares other processes an event's handler changes (its own process and every
// environment component are always included).
func Touches(procs ...string) Option {
	return func(e *Event, m *Model) {
		for _, p := range procs {
			i := m.index(p)
			if i < 0 {
				m.fail("event %s.%s touches unknown process %q", e.Proc, e.Name, p)
				continue
			}
			e.Touches = append(e.Touches, i)
		}
	}
}

func (m *Model) index(name string) int {
	for i, c := range m.comps {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// On adds an event: handler runs to completion as one transition of this process.
func (p *Proc) On(event string, handler func(), opts ...Option) *Proc {
	m := p.m
	e := &Event{Proc: m.comps[p.comp].Name, Name: event, Comp: p.comp, Handler: handler}
	e.Label = e.Proc + "." + e.Name
	if handler == nil {
		m.fail("event %s.%s has no handler", e.Proc, e.Name)
		return p
	}
	fn := runtime.FuncForPC(reflect.ValueOf(handler).Pointer())
	if fn != nil {
		e.File, e.Line = fn.FileLine(fn.Entry())
	}
	e.Touches = []int{p.comp}
	for _, o := range opts {
		o(e, m)
	}
	for _, o := range m.events {
		if o.Proc == e.Proc && o.Name == e.Name {
			m.fail("event %s.%s declared twice", e.Proc, e.Name)
		}
	}
	m.events = append(m.events, e)
	return p
}

// Invariant adds a property that must hold in every reachable state; a non-nil error is a violation.
func (m *Model) Invariant(name string, check func() error) {
	m.invariants = append(m.invariants, Property{Name: name, Check: check})
}

// Constraint bounds the search: a state where keep returns false is a leaf (it is checked, but its
// successors are not explored), as the thesis cuts sequence numbers beyond a bound.
func (m *Model) Constraint(name string, keep func() bool) {
	m.constraints = append(m.constraints, Property{Name: name, Check: func() error {
		if keep() {
			return nil
		}
		return fmt.Errorf("outside %s", name)
	}})
}

// Omit leaves field out of the state of every value of type typ, as the tag cmc:"-" would, for a
// type that cannot carry tags (a library's). typ is the type's package path and name: TypeName
// gives it for an exported type; an unexported one is written out, as "go.etcd.io/raft/v3.raft".
// A rule that matches no captured value makes the check fail, so a typo cannot pass silently. The
// run summary lists the rules. Rules hold while this model's transitions run.
func (m *Model) Omit(typ, field string) {
	m.rules = append(m.rules, canon.Rule{Type: typ, Field: field, Tag: "-"})
}

// Unordered treats slice field of type typ as a multiset, as the tag cmc:"set" would (see Omit).
func (m *Model) Unordered(typ, field string) {
	m.rules = append(m.rules, canon.Rule{Type: typ, Field: field, Tag: "set"})
}

// Key names the elements of slice field of type typ by the given fields of each element (a path
// such as Msg.ID reaches into a nested struct), as a map names its entries by key: a route table
// sorted by destination reads B.routes[Dest=D], not B.routes[1]. Diffs, the Changes scope and
// data breakpoints then follow an element wherever it moves in the slice, and show an element
// that came or went as added or removed, not every later one as changed. It changes how states
// are shown, never what they are. A set (cmc:"set", Unordered) without a key is named by its
// elements' values. typ is named as for Omit; a rule that matches nothing, or a key that is not a
// field of the elements, fails the check.
func (m *Model) Key(typ, field string, key ...string) {
	m.rules = append(m.rules, canon.Rule{Type: typ, Field: field, Key: key})
}

// TypeName is the name of type T in rules (Model.Omit): its package path and name.
func TypeName[T any]() string { return canon.TypeName(reflect.TypeFor[T]()) }

// DeadlockIsError makes a reachable state with no enabled event a violation.
func (m *Model) DeadlockIsError() { m.deadlock = true }

// StepInvariant adds a property over each transition: capture runs before and after every
// transition, and check compares the two results.
func StepInvariant[T any](m *Model, name string, capture func() T, check func(before, after T) error) {
	m.stepChecks = append(m.stepChecks, stepCheck{
		name:    name,
		capture: func() any { return capture() },
		check:   func(b, a any) error { return check(b.(T), a.(T)) },
	})
}

// Components are the model's processes and environment components, in declaration order, for
// tools that ask them about a run after it (the worker's summary of an env.Peer's I/O cache):
// unlike Definition it may be called any time.
func (m *Model) Components() []*Component { return m.comps }

// Definition is what the engine reads of a model. It returns the first error made while building
// the model, if any.
func (m *Model) Definition() (*Definition, error) {
	if m.err != nil {
		return nil, m.err
	}
	if m.used {
		return nil, fmt.Errorf("model %s was already run: its processes hold the last run's state, so build a new model for each run", m.name)
	}
	m.used = true
	procs := 0
	for _, c := range m.comps {
		if !c.Shared {
			procs++
		}
	}
	if procs == 0 {
		return nil, fmt.Errorf("model %s has no processes: add one with m.Process(name, &state)", m.name)
	}
	d := &Definition{
		Name: m.name, Components: m.comps, Events: m.events, Invariants: m.invariants,
		Constraints: m.constraints, Deadlock: m.deadlock, Rules: m.rules, Bounds: m.bounds, Seen: m.seen,
		Scores: m.scores, Abstract: m.abstract, Scenarios: m.scenarios,
		Refinements: m.refinements,
	}
	for _, e := range d.Events {
		for i, c := range m.comps {
			if c.Shared {
				e.Touches = append(e.Touches, i)
			}
		}
	}
	for _, s := range m.stepChecks {
		d.StepChecks = append(d.StepChecks, StepCheck{Name: s.name, Capture: s.capture, Check: s.check})
	}
	return d, nil
}

// A Definition is a model as the engine sees it.
type Definition struct {
	Name        string
	Components  []*Component
	Events      []*Event
	Invariants  []Property
	StepChecks  []StepCheck
	Constraints []Property
	Deadlock    bool
	Rules       []canon.Rule  // fields left out or made sets, for types without tags
	Bounds      []Bound       // largest values of integer fields (bounds.go)
	Seen        *ValuesSeen   // the values Distinct bounds watch have taken; nil without one
	Scores      []func() int  // a best-first search's score, by level (Model.Score)
	Abstract    func() any    // the abstract state (Model.Abstract)
	Scenarios   []Scenario    // what should be reachable (Model.Sometimes)
	Refinements []*Refinement // specifications the model must refine (Refines)
}

// A StepCheck is a property over one transition (see StepInvariant).
type StepCheck struct {
	Name    string
	Capture func() any
	Check   func(before, after any) error
}
