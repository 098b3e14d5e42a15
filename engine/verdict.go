package engine

import (
	"fmt"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/internal/transition"
)

// The checks the search makes after a transition, as Machine methods, so replay can say whether a
// stored trace's violation still happens (and minimisation whether a shorter path reaches it)
// without a search.

// CaptureStep runs the step invariants' capture functions on the live state: call it after
// loading the state a transition starts from, and pass the result to Verdict.
func (mc *Machine) CaptureStep() []any {
	if len(mc.Def.StepChecks) == 0 {
		return nil
	}
	before := make([]any, len(mc.Def.StepChecks))
	for i, c := range mc.Def.StepChecks {
		before[i] = c.Capture()
	}
	return before
}

// Verdict checks the state a transition reached as the search does: the step invariants over the
// transition (before is what CaptureStep returned before it; nil skips them), then the invariants,
// then the enabling conditions (a panic in one is a violation) and, when the model makes deadlock
// an error, whether any event is enabled. It returns the first violation, or nil. It is made of
// the same three judgements the search makes at its three moments (StepVerdict after a handler
// runs, StateVerdict on a new state, DeadlockVerdict when expanding one), so the two never judge
// a transition differently.
func (mc *Machine) Verdict(s State, before []any) (*Violation, error) {
	if before != nil {
		// The live values are what the transition left: the step checks read them as they are.
		if v := mc.StepVerdict(before); v != nil {
			return v, nil
		}
	}
	if err := mc.Load(s); err != nil {
		return nil, err
	}
	if v := mc.StateVerdict(); v != nil {
		return v, nil
	}
	enabled, fail, err := mc.Enabled(s)
	switch {
	case err != nil:
		return nil, err
	case fail != nil:
		return NewViolation(fail.Kind, "", fail.Message, fail.Site), nil
	}
	return mc.DeadlockVerdict(len(enabled)), nil
}

// StepVerdict checks the step invariants over the transition that just ran on the live values;
// before is what CaptureStep returned before it.
func (mc *Machine) StepVerdict(before []any) *Violation {
	for i, c := range mc.Def.StepChecks {
		fail, err := mc.Guard("step invariant", c.Name, func() error { return c.Check(before[i], c.Capture()) })
		switch {
		case fail != nil:
			return NewViolation(fail.Kind, c.Name, fail.Message, fail.Site)
		case err != nil:
			return NewViolation("step-invariant", c.Name, err.Error(), "")
		}
	}
	return nil
}

// StateVerdict checks the invariants on the live state.
func (mc *Machine) StateVerdict() *Violation {
	if v := mc.refinementVerdict(); v != nil {
		return v
	}
	for _, inv := range mc.Def.Invariants {
		fail, err := mc.Guard("invariant", inv.Name, inv.Check)
		switch {
		case fail != nil:
			return NewViolation(fail.Kind, inv.Name, fail.Message, fail.Site)
		case err != nil:
			return NewViolation("invariant", inv.Name, err.Error(), "")
		}
	}
	return nil
}

// DeadlockVerdict is the violation of a state in which enabled events are enabled: a deadlock
// when there are none and the model makes that an error.
func (mc *Machine) DeadlockVerdict(enabled int) *Violation {
	if enabled == 0 && mc.Def.Deadlock {
		return NewViolation("deadlock", "", "no event is enabled", "")
	}
	return nil
}

// Enabled lists the indexes of the events enabled in s. A panic in an enabling condition stops
// the list and is returned as a Failure.
func (mc *Machine) Enabled(s State) ([]int, *Failure, error) { return mc.enabledIn(nil, s) }

// enabledIn is Enabled appending to dst.
func (mc *Machine) enabledIn(dst []int, s State) ([]int, *Failure, error) {
	if err := mc.Load(s); err != nil {
		return nil, nil, err
	}
	out, fail := mc.enabledLive(dst)
	return out, fail, nil
}

// enabledLive appends to dst the indexes of the events enabled on the live objects as they are.
// The conditions run for every state, so they run in one loop under one deferred recover, not
// through Guard (a closure and a recover each), and as one call into user code for the slot's
// watchdog (two atomic writes a state, not two a condition): a condition that never returns still
// leaves the slot's count odd and unchanged.
func (mc *Machine) enabledLive(dst []int) (out []int, fail *Failure) {
	out = dst
	i := 0
	mc.slot.Enter()
	defer func() {
		mc.slot.Leave()
		if r := recover(); r != nil {
			fail = failure(r)
			fail.Message = "enabling condition of " + mc.Def.Events[i].Label + ": " + fail.Message
		}
	}()
	for ; i < len(mc.enabling); i++ {
		if e := mc.enabling[i]; e != nil && !e() {
			continue
		}
		out = append(out, i)
	}
	return out, nil
}

// RunChoosing runs event ev's handler once on the live state with Choose calls answered by
// choose(i, n) (i counts the calls from 0). Replay uses it to stop a handler at a Choose call (choose
// panics) and minimisation to replay a shortened trace leniently (choose clamps a stale value).
func (mc *Machine) RunChoosing(ev int, noting bool, choose func(i, n int) int) Outcome {
	calls := 0
	return mc.Run(mc.Def.Events[ev], nil, noting, func(n int) int {
		v := choose(calls, n)
		calls++
		return v
	})
}

// Record re-runs steps from state init with notes on and returns the full trace, as the search
// records a violation's path: Choose sites, notes, state hashes and changes. The caller sets the
// Violation. A step whose handler fails must be the last.
func (mc *Machine) Record(init State, steps []Step) (*Trace, State, Outcome, error) {
	path := make([]pathStep, len(steps))
	for i := range steps {
		ei, _ := mc.Event(steps[i].Proc, steps[i].Event)
		if ei < 0 {
			return nil, nil, Outcome{}, fmt.Errorf("step %d: the model has no event %s.%s", i+1, steps[i].Proc, steps[i].Event)
		}
		path[i] = pathStep{event: ei, values: steps[i].Values()}
	}
	return mc.record(init, path)
}

// Pause releases the process-wide lock on running user code while the machine is idle, so another
// machine in the same process can run (a check in a worker that holds an open replay session).
// Resume takes it back; call it before using the machine again. Close needs it held.
func (mc *Machine) Pause() { transition.Lock.Unlock() }

// Resume takes back the lock Pause released.
func (mc *Machine) Resume() {
	transition.Lock.Lock()
	canon.SetRules(mc.Def.Rules) // another machine may have run another model's rules meanwhile
}
