package env

import "slices"

// A Timer is an armed timer of one process.
type Timer struct {
	Proc int
	Name string
}

// Timers are armed timers. Time is abstract, as in the thesis: any armed timer may fire next, so
// the model declares a "fire" event enabled when IsSet and the checker explores every order.
// Register it with Model.Environment.
type Timers struct {
	Armed []Timer `cmc:"set"`
}

// Set arms a timer (arming an armed timer changes nothing).
func (t *Timers) Set(proc int, name string) {
	if !t.IsSet(proc, name) {
		t.Armed = append(t.Armed, Timer{proc, name})
	}
}

// Cancel disarms a timer.
func (t *Timers) Cancel(proc int, name string) {
	t.Armed = slices.DeleteFunc(t.Armed, func(x Timer) bool { return x == Timer{proc, name} })
}

// IsSet reports whether a timer is armed.
func (t *Timers) IsSet(proc int, name string) bool {
	return slices.Contains(t.Armed, Timer{proc, name})
}

// Fire disarms the timer and reports whether it was armed: call it first in the fire handler.
func (t *Timers) Fire(proc int, name string) bool {
	if !t.IsSet(proc, name) {
		return false
	}
	t.Cancel(proc, name)
	return true
}
