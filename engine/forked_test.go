package engine

import "testing"

// TestHelperJobsAreReused: a job the search has merged or taken back returns to the spare jobs
// once the helper has passed it in the queue, and the list of such jobs allocates nothing. Resliced
// from its front, that list lost its room, and every append copied it to a new array: 610,000
// allocations in a depth-first search of TwoPhase RM=8, a third of one a state.
func TestHelperJobsAreReused(t *testing.T) {
	f := &forked{}
	var first *job
	cycle := func() {
		j := f.job() // as offer takes one
		if first == nil {
			first = j
		}
		j.seq = f.head // as post numbers it
		f.head++
		f.back = append(f.back, j) // as take keeps it, merged or taken back
		f.tailSeen = f.head        // the helper has passed it
	}
	for range 4 {
		cycle()
	}
	if n := testing.AllocsPerRun(1000, cycle); n != 0 {
		t.Errorf("%v allocations a job; want 0", n)
	}
	if j := f.job(); j != first {
		t.Errorf("a new job, not the one passed back")
	}
}
