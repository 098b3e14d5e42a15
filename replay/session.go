package replay

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

var (
	// ErrEnd is returned when moving forward from the last replayed step.
	ErrEnd = errors.New("at the end of the replayed trace")
	// ErrStart is returned when moving back from the initial state.
	ErrStart = errors.New("at the initial state")
	// ErrClosed is returned by a closed session.
	ErrClosed = errors.New("replay session is closed")
)

// A Session is a trace being replayed: the model's machine, every replayed step's state, and a
// cursor. Its methods are safe for concurrent use. While idle it lets other machines in the
// process run (a check in the same worker).
type Session struct {
	mu    sync.Mutex
	mc    *engine.Machine
	t     *engine.Trace
	upto  int      // steps Open was asked to replay
	nc    int      // components per state
	flat  []uint32 // the state after each replayed step, nc ids each; step 0 is the initial state
	good  int      // last step whose state is proven; -1 when even the initial state differs
	div   *Divergence
	fail  *engine.Failure   // the last step's handler failure, when the trace ends in one
	found *engine.Violation // what the replayed trace ends in, when it was replayed to the end
	note  string            // why replay stopped short without diverging
	pos   engine.Cursor
	cache map[int][]canon.Leaf // leaves of recently viewed states, by step
}

// Open replays trace t on model m from its initial state, feeding each step's process, event and
// Choose values, and compares every state's hash with the stored one. It returns the session and,
// when the trace no longer holds, a *Divergence: the session is then valid up to the step before
// it. Any other error means the model could not be replayed at all. Close the session when done.
// Components that talk to real peers (env.Peer) first learn the conversations the trace recorded,
// so the replay answers from the trace and needs a peer only where it departs from it.
func Open(m *cmc.Model, t *engine.Trace) (*Session, error) { return OpenTo(m, t, 0) }

// OpenTo is Open that replays only the first n steps (all of them when n is 0 or more than the
// trace has). The trace's violation is checked only when every step is replayed.
func OpenTo(m *cmc.Model, t *engine.Trace, n int) (*Session, error) {
	if n <= 0 || n > len(t.Steps) {
		n = len(t.Steps)
	}
	if err := teach(m, t); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	mc, init, err := engine.NewMachine(m)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	s := &Session{mc: mc, t: t, upto: n, nc: len(init), cache: map[int][]canon.Leaf{}}
	s.flat = make([]uint32, 0, (n+1)*s.nc)
	s.flat = append(s.flat, init...)
	err = s.replay()
	mc.Pause()
	if err != nil && s.div == nil {
		s.Close()
		return nil, err
	}
	if s.div != nil {
		return s, s.div
	}
	return s, nil
}

// replay runs the steps and records the states, the divergence or the verdict.
func (s *Session) replay() error {
	mc, t := s.mc, s.t
	if engine.Hash(mc.Hash(s.state(0))) != t.InitHash {
		s.good = -1
		s.div = &Divergence{Kind: "init", Reason: "the initial state differs from the stored trace's"}
		if t.Init != nil {
			if now, err := mc.Leaves(s.state(0)); err == nil {
				s.div.Changes = canon.Diff(t.Init, now)
			}
		}
		return nil
	}
	for i := 1; i <= s.upto; i++ {
		st := &t.Steps[i-1]
		last := i == len(t.Steps)
		if last && t.Violation != nil && (t.Violation.Kind == "hang" || t.Violation.Kind == "crash") {
			what := "hung"
			if t.Violation.Kind == "crash" {
				what = "crashed the worker"
			}
			s.note = fmt.Sprintf("step %d %s during the search (%s); replay does not run it again", i, what, t.Violation.Message)
			s.upto = i - 1
			return nil
		}
		prev := s.state(i - 1)
		var before []any
		if last {
			if err := mc.Load(prev); err != nil {
				return err
			}
			before = mc.CaptureStep()
		}
		next, out, err := mc.Apply(prev, i, st, false)
		switch {
		case err == nil && out.Failure == nil && engine.Hash(mc.Hash(next)) == st.Hash:
			s.flat = append(s.flat, next...)
			s.good = i
			if last {
				v, err := mc.Verdict(next, before)
				if err != nil {
					return err
				}
				s.found = v
			}
			continue
		case err == nil && out.Failure != nil && last && st.Hash == 0 && t.Violation != nil &&
			failureViolation(out.Failure).Signature == t.Violation.Signature:
			f := *out.Failure
			s.fail, s.found = &f, failureViolation(&f)
			s.flat = append(s.flat, prev...) // a failed handler leaves no state: show the one before
			s.good = i
			continue
		}
		s.div = s.diverged(prev, i, next, out, err)
		return nil
	}
	if len(t.Steps) == 0 { // the violation is in the initial state
		v, err := mc.Verdict(s.state(0), nil)
		if err != nil {
			return err
		}
		s.found = v
	}
	if s.upto == len(t.Steps) && t.Violation != nil && (s.found == nil || s.found.Signature != t.Violation.Signature) {
		d := &Divergence{Step: len(t.Steps), Kind: "violation"}
		if len(t.Steps) > 0 {
			d.Proc, d.Event = t.Steps[len(t.Steps)-1].Proc, t.Steps[len(t.Steps)-1].Event
		}
		if s.found == nil {
			d.Reason = "every state hash matches, but the violation no longer happens (the trace ends in " + describeViolation(t.Violation) + ")"
		} else {
			d.Reason = "every state hash matches, but it ends in another violation now: " + describeViolation(s.found) +
				" (the trace ends in " + describeViolation(t.Violation) + ")"
		}
		s.div = d
	}
	return nil
}

func failureViolation(f *engine.Failure) *engine.Violation {
	return engine.NewViolation(f.Kind, "", f.Message, f.Site)
}

// state returns the replayed state after step n.
func (s *Session) state(n int) engine.State {
	return engine.State(s.flat[n*s.nc : (n+1)*s.nc : (n+1)*s.nc])
}

// last is the last step the cursor can reach.
func (s *Session) last() int { return len(s.flat)/s.nc - 1 }

// Close releases the model's machine.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mc != nil {
		s.mc.Resume()
		s.mc.Close()
		s.mc = nil
	}
}

// use takes the session for one operation: its lock and the process-wide lock on user code. done
// gives them back. (A method, not a returned closure: the closure was an allocation every move.)
func (s *Session) use() error {
	s.mu.Lock()
	if s.mc == nil {
		s.mu.Unlock()
		return ErrClosed
	}
	s.mc.Resume()
	return nil
}

// done ends the operation use began.
func (s *Session) done() {
	s.mc.Pause()
	s.mu.Unlock()
}

// Trace returns the trace being replayed.
func (s *Session) Trace() *engine.Trace { return s.t }

// Steps is the number of steps in the trace.
func (s *Session) Steps() int { return len(s.t.Steps) }

// Verified is the last step whose state replay proved identical to the stored one: 0 is the
// initial state, -1 means even that differs.
func (s *Session) Verified() int { return s.good }

// Divergence is where the trace stopped matching, or nil.
func (s *Session) Divergence() *Divergence { return s.div }

// Position is where the cursor is.
func (s *Session) Position() engine.Cursor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos
}

// Choices returns step n's Choose calls in call order, as the trace records them.
func (s *Session) Choices(n int) []ChoicePoint {
	if n < 1 || n > len(s.t.Steps) {
		return nil
	}
	return choicePoints(&s.t.Steps[n-1])
}

// A ChoicePoint is one Choose call of a step.
type ChoicePoint struct {
	Index int    `json:"index"` // 1-based, in call order
	Value int    `json:"value"`
	N     int    `json:"n"`
	Site  string `json:"site"`
	Label string `json:"label,omitempty"` // what the value means (cmc.ChooseOf)
}

func choicePoints(st *engine.Step) []ChoicePoint {
	out := make([]ChoicePoint, len(st.Choices))
	for i, c := range st.Choices {
		out[i] = ChoicePoint{Index: i + 1, Value: c.Value, N: c.N, Site: c.Site, Label: c.Label}
	}
	return out
}

// GoTo moves the cursor to the state after step n, re-running step n to prove it again.
func (s *Session) GoTo(n int) error { return s.Seek(engine.After(n)) }

// Seek moves the cursor to c, re-running c's step to prove it again.
func (s *Session) Seek(c engine.Cursor) error {
	if err := s.use(); err != nil {
		return err
	}
	defer s.done()
	return s.seek(c, true)
}

// The moves are the trace's own (engine.Trace.StepOver, StepIn, StepBack), which the DAP session
// makes too; a session only refuses to move past the last replayed step. Moving within a step
// re-runs nothing: the step was proven when the cursor entered it.

// Step moves forward one step; inside a step, it finishes that step.
func (s *Session) Step() error { return s.move(s.t.StepOver, ErrEnd) }

// StepOut moves to the end of the current step; at the end of a step, it is Step.
func (s *Session) StepOut() error { return s.move(s.t.StepOver, ErrEnd) }

// StepIn moves to the next Choose call: from the end of a step, to the first Choose of the next
// step (or its end, when it makes none); inside a step, to its next Choose, then to its end.
func (s *Session) StepIn() error { return s.move(s.t.StepIn, ErrEnd) }

// Back moves to the state before the current step (inside a step: before that step).
func (s *Session) Back() error { return s.move(s.t.StepBack, ErrStart) }

// move moves the cursor with a move of the trace; at the trace's end or start, or past the
// replayed steps, it returns stop.
func (s *Session) move(m func(engine.Cursor) (engine.Cursor, bool), stop error) error {
	if err := s.use(); err != nil {
		return err
	}
	defer s.done()
	c, ok := m(s.pos)
	if !ok || c.Step > s.last() {
		return stop
	}
	return s.seek(c, c.Step != s.pos.Step)
}

// seek moves the cursor, first re-running the target step when verify is set.
func (s *Session) seek(c engine.Cursor, verify bool) error {
	if c.Step < 0 || c.Step > s.last() {
		return fmt.Errorf("step %d is outside the replayed trace (steps 0 to %d)", c.Step, s.last())
	}
	if err := s.t.Check(c); err != nil {
		return err
	}
	if verify {
		if err := s.verify(c.Step); err != nil {
			return err
		}
	}
	s.pos = c
	return nil
}

// verify re-runs step n from the stored state before it and checks that it reaches the stored
// state after it again. Open proved that once, so a difference now is nondeterminism.
func (s *Session) verify(n int) error {
	if n == 0 {
		return s.mc.Load(s.state(0))
	}
	prev := s.state(n - 1)
	next, out, err := s.mc.Apply(prev, n, &s.t.Steps[n-1], false)
	if err == nil {
		lastFailed := s.fail != nil && n == len(s.t.Steps)
		switch {
		case !lastFailed && out.Failure == nil && slices.Equal(next, s.state(n)):
			return nil
		case lastFailed && out.Failure != nil && failureViolation(out.Failure).Signature == s.found.Signature:
			return nil
		}
	}
	d := s.diverged(prev, n, next, out, err)
	d.Nondeterministic = true
	return d
}
