// Package twophase is two-phase commit exactly as in Lamport's TwoPhase TLA+ specification,
// written as Go processes: resource managers, a transaction manager, and a set of messages that
// only grows. Its distinct-state counts match what TLC reports for that specification (see
// docs/performance.md), which makes it the engine's reference model.
package twophase

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc"
)

// RMState is a resource manager's state.
type RMState string

// TMState is the transaction manager's state.
type TMState string

const (
	Working   RMState = "working"
	Prepared  RMState = "prepared"
	Committed RMState = "committed"
	Aborted   RMState = "aborted"

	TMInit      TMState = "init"
	TMCommitted TMState = "committed"
	TMAborted   TMState = "aborted"
)

// A Msg is a message: Prepared (from one RM), Commit or Abort.
type Msg struct {
	Type string // "Prepared", "Commit", "Abort"
	RM   int    // for Prepared
}

// Msgs is the set of messages sent; it only grows.
type Msgs struct {
	Sent []Msg `cmc:"set"`
}

// Add sends m (a set: sending twice changes nothing).
func (s *Msgs) Add(m Msg) {
	if !s.Has(m) {
		s.Sent = append(s.Sent, m)
	}
}

// Has reports whether m was sent.
func (s *Msgs) Has(m Msg) bool { return slices.Contains(s.Sent, m) }

// RM is a resource manager.
type RM struct {
	State RMState
}

// TM is the transaction manager.
type TM struct {
	State    TMState
	Prepared []bool // which RMs it knows are prepared
}

// System is the whole model state, one value per process.
type System struct {
	TM   TM
	RMs  []RM
	Msgs Msgs
}

// New builds the TwoPhase model with n resource managers.
func New(n int) *cmc.Model {
	s := &System{TM: TM{State: TMInit, Prepared: make([]bool, n)}, RMs: make([]RM, n)}
	for i := range s.RMs {
		s.RMs[i].State = Working
	}
	m := cmc.NewModel("TwoPhase")
	m.Environment("msgs", &s.Msgs)
	tm := m.Process("tm", &s.TM)
	for i := range n {
		tm.On(fmt.Sprintf("TMRcvPrepared(%d)", i), func() { s.TM.Prepared[i] = true },
			cmc.When(func() bool { return s.TM.State == TMInit && s.Msgs.Has(Msg{"Prepared", i}) && !s.TM.Prepared[i] }))
	}
	tm.On("TMCommit", func() {
		s.TM.State = TMCommitted
		s.Msgs.Add(Msg{Type: "Commit"})
	}, cmc.When(func() bool { return s.TM.State == TMInit && !slices.Contains(s.TM.Prepared, false) }))
	tm.On("TMAbort", func() {
		s.TM.State = TMAborted
		s.Msgs.Add(Msg{Type: "Abort"})
	}, cmc.When(func() bool { return s.TM.State == TMInit }))
	for i := range n {
		rm := &s.RMs[i]
		p := m.Process(fmt.Sprintf("rm%d", i), rm)
		p.On("RMPrepare", func() {
			rm.State = Prepared
			s.Msgs.Add(Msg{"Prepared", i})
		}, cmc.When(func() bool { return rm.State == Working }))
		p.On("RMChooseToAbort", func() { rm.State = Aborted }, cmc.When(func() bool { return rm.State == Working }))
		p.On("RMRcvCommitMsg", func() { rm.State = Committed }, cmc.When(func() bool { return s.Msgs.Has(Msg{Type: "Commit"}) && rm.State != Committed }))
		p.On("RMRcvAbortMsg", func() { rm.State = Aborted }, cmc.When(func() bool { return s.Msgs.Has(Msg{Type: "Abort"}) && rm.State != Aborted }))
	}
	// No RM aborted while another committed: the first of each, in one pass over the RMs (as
	// bench/twophase.pml checks it), not a pass over every pair as TLA+'s \A rm1, rm2 reads.
	m.Invariant("TCConsistent", func() error {
		aborted, committed := -1, -1
		for i, rm := range s.RMs {
			if rm.State == Aborted && aborted < 0 {
				aborted = i
			}
			if rm.State == Committed && committed < 0 {
				committed = i
			}
		}
		if aborted >= 0 && committed >= 0 {
			return fmt.Errorf("rm%d aborted while rm%d committed", aborted, committed)
		}
		return nil
	})
	return m
}

func init() {
	cmc.Register("TwoPhase", func(p *cmc.Params) *cmc.Model {
		n := p.Int("RM", 3)
		if n < 1 || n > 16 {
			p.Fail("parameter RM=%d: want 1 to 16 resource managers", n)
		}
		return New(n)
	})
}
