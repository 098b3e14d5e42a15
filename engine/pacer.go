package engine

import "time"

// The depth-first search's helper (forked.go) pays only while a cache line crosses between the two
// cores quickly. On a virtual machine the host may run the two CPUs on cores that share a cache or
// on cores that do not, and move them from one minute to the next (bench/corelatency: a trip of
// about 45 or 205 ns here). Apart, handing jobs and their records across costs more than the
// helper saves: TwoPhase RM=9 took 25.9 s with the helper against 20.1 s with it paused, and
// 14.7 s against 19.9 s with the cores near (docs/performance.md).
//
// So the search times itself. Each cycle of pacing.cycle states it pops begins with a probe:
// pacing.blocks blocks of pacing.block states, in turn with the helper paused (no job posted; it
// finishes what it has and sleeps) and with it, so that both see the same stretch of the search.
// The rest of the cycle goes the way whose blocks took less time in all. Which way runs depends on
// the clock; what the search finds does not: a job's records give exactly what the search's own
// expansion of its state would (TestParallelSameResult also pauses the helper every few states).
type pacer struct {
	n     int              // states popped in this cycle
	start time.Time        // of the block under way
	took  [2]time.Duration // the probe's blocks without the helper, and with it
	pause bool             // the rest of the cycle goes without the helper
}

// pacing is how long a probe's blocks, a probe and a cycle are. TwoPhase RM=9 pops 450,000-700,000
// states a second here: blocks of 4,096 states (6-9 ms) follow the search's changing mix of states;
// a probe of 32 of them (0.2-0.3 s) averages the 20 ms ticker and the collector out (one probe of
// 32,768 states each way, one after the other, took 43-92 ms in one run, and chose the slower way
// in 3 of 10 cycles); and a cycle of 2^21 states (3-5 s) follows a move of the cores within seconds
// while the blocks on the slower way cost about 1% of it.
var pacing = struct{ block, blocks, cycle int }{1 << 12, 32, 1 << 21}

// pacerClock reads the time (a test's clock in TestPacerKeepsTheFasterWay).
var pacerClock = time.Now

// paused says whether the helper stays idle while the search expands its next state, and counts
// that state.
func (p *pacer) paused() bool {
	n := p.n
	if p.n++; p.n == pacing.cycle {
		p.n = 0
	}
	probe := pacing.block * pacing.blocks
	if n > probe {
		return p.pause
	}
	k := n / pacing.block
	if n%pacing.block == 0 {
		now := pacerClock()
		if k > 0 {
			p.took[(k-1)%2] += now.Sub(p.start)
		}
		p.start = now
		if n == probe {
			p.pause, p.took = p.took[0] < p.took[1], [2]time.Duration{}
			return p.pause
		}
	}
	return k%2 == 0
}
