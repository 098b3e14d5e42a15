package engine

import (
	"testing"
	"time"
)

// TestPacerProbesBothWays: every cycle begins with blocks of states in turn with the helper paused
// and with it, then keeps one way to its end; the next cycle probes again.
func TestPacerProbesBothWays(t *testing.T) {
	p := pacing
	defer func() { pacing = p }()
	pacing.block, pacing.blocks, pacing.cycle = 3, 4, 20
	var pc pacer
	probe := pacing.block * pacing.blocks
	for cycle := range 3 {
		var got []bool
		for range pacing.cycle {
			got = append(got, pc.paused())
		}
		for i, paused := range got[:probe] {
			if want := i/pacing.block%2 == 0; paused != want {
				t.Fatalf("cycle %d, state %d: paused %v; want blocks of %d paused and not in turn, paused first", cycle, i, paused, pacing.block)
			}
		}
		for i, paused := range got[probe:] {
			if paused != pc.pause {
				t.Fatalf("cycle %d, state %d: paused %v, but the cycle keeps %v", cycle, probe+i, paused, pc.pause)
			}
		}
	}
}

// TestPacerKeepsTheFasterWay: on a clock where a state takes longer one way than the other, the
// rest of every cycle goes the faster way, whichever it is, and follows a change.
func TestPacerKeepsTheFasterWay(t *testing.T) {
	p, c := pacing, pacerClock
	defer func() { pacing, pacerClock = p, c }()
	pacing.block, pacing.blocks, pacing.cycle = 3, 4, 20
	var now time.Time
	pacerClock = func() time.Time { return now }
	var pc pacer
	for _, fasterAlone := range []bool{true, false, false, true} {
		for i := range pacing.cycle {
			paused := pc.paused()
			cost := 3 * time.Microsecond // a state, the slower way
			if paused == fasterAlone {
				cost = 2 * time.Microsecond
			}
			now = now.Add(cost)
			if i >= pacing.block*pacing.blocks && paused != fasterAlone {
				t.Fatalf("faster alone %v: state %d of the cycle paused %v", fasterAlone, i, paused)
			}
		}
	}
}
