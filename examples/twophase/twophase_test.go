package twophase

import (
	"context"
	"fmt"
	"testing"

	"github.com/cmc-go/cmc/engine"
)

// TestStates pins the counts of TwoPhase: the distinct states are TLC's for Lamport's
// specification (and SPIN's for bench/twophase.pml).
func TestStates(t *testing.T) {
	for _, c := range []struct {
		rm                 int
		states, transition int64
		depth              int
	}{{3, 288, 761, 10}, {5, 8832, 37345, 16}, {7, 296448, 1735809, 22}} {
		r, err := engine.Check(context.Background(), New(c.rm), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.States != c.states || r.Transitions != c.transition || r.Depth != c.depth || !r.Complete || len(r.Violations) > 0 {
			t.Errorf("RM=%d: %d states, %d transitions, depth %d, complete %v, %d violations; want %d, %d, %d, complete, none",
				c.rm, r.States, r.Transitions, r.Depth, r.Complete, len(r.Violations), c.states, c.transition, c.depth)
		}
	}
}

// TestTCConsistent: the invariant, which looks for the first aborted and the first committed RM
// in one pass, says what TLA+'s TCConsistent says over every pair, for every assignment of three
// RMs' states, and names the first pair.
func TestTCConsistent(t *testing.T) {
	states := []RMState{Working, Prepared, Committed, Aborted}
	m := New(3)
	def, err := m.Definition()
	if err != nil {
		t.Fatal(err)
	}
	rms := make([]*RM, 3)
	for i := range rms {
		rms[i] = def.Components[i+2].Root.Interface().(*RM) // after msgs and tm
	}
	for n := range 64 {
		for i := range rms {
			rms[i].State = states[n>>(2*i)&3]
		}
		var want error
	pairs:
		for i := range rms {
			for j := range rms {
				if rms[i].State == Aborted && rms[j].State == Committed {
					want = fmt.Errorf("rm%d aborted while rm%d committed", i, j)
					break pairs
				}
			}
		}
		got := def.Invariants[0].Check()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%v, %v, %v: TCConsistent says %v, want %v", rms[0].State, rms[1].State, rms[2].State, got, want)
		}
	}
}
