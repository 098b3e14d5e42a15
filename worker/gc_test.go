package worker

import "testing"

// TestGCPercent: the heap may grow by gcRoom past small live data, by the live data itself past
// large, and GOGC stays between 100 and 1000.
func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100}, {1 << 10, 1000}, {gcRoom / 20, 1000}, {gcRoom / 8, 800}, {gcRoom / 4, 400},
		{gcRoom / 2, 200}, {gcRoom - 1, 100}, {gcRoom, 100}, {1 << 40, 100},
	} {
		if got := gcPercent(c.live); got != c.want {
			t.Errorf("gcPercent(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}
