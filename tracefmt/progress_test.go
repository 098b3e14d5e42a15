package tracefmt

import (
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
)

// TestProgress: the progress line of cmcdap check and of the DAP progress events: states, the
// rate, the level and the frontier, and each partition's share with the balance.
func TestProgress(t *testing.T) {
	for _, c := range []struct {
		p       engine.Progress
		elapsed time.Duration
		want    string
	}{
		{engine.Progress{States: 12345, Depth: 7, Frontier: 1234}, 2 * time.Second,
			"12,345 states · 6,172 states/s · depth 7 · frontier 1,234"},
		// A finished search's frontier is empty: not shown.
		{engine.Progress{States: 288, Depth: 9}, time.Second, "288 states · 288 states/s · depth 9"},
		{engine.Progress{States: 8832, Depth: 12, Frontier: 700, Partitions: []int64{4366, 4466}}, 4 * time.Second,
			"8,832 states · 2,208 states/s · depth 12 · frontier 700 · partitions 4,366/4,466 (max/mean 1.01)"},
		// All in one of three partitions: max/mean is the number of partitions.
		{engine.Progress{States: 5, Frontier: 1, Partitions: []int64{5, 0, 0}}, time.Second,
			"5 states · 5 states/s · depth 0 · frontier 1 · partitions 5/0/0 (max/mean 3.00)"},
		// One partition is no balance to speak of; guidance comes before the partitions.
		{engine.Progress{States: 10, Scenarios: 2, Reached: 1, Partitions: []int64{10}}, 10 * time.Second,
			"10 states · 1 states/s · depth 0 · 1 of 2 scenarios reached"},
		// A swarm over processes: how many of its members are done.
		{engine.Progress{States: 40, Depth: 3, Members: 8, MembersDone: 3}, time.Second,
			"40 states · 40 states/s · depth 3 · members 3/8 done"},
		// A report before any time has passed does not divide by zero.
		{engine.Progress{States: 1, Frontier: 1, Partitions: []int64{0, 0}}, 0,
			"1 states · 1,000 states/s · depth 0 · frontier 1 · partitions 0/0 (max/mean 0.00)"},
	} {
		if got := Progress(c.p, c.elapsed); got != c.want {
			t.Errorf("Progress(%+v, %s)\n got %q\nwant %q", c.p, c.elapsed, got, c.want)
		}
	}
}
