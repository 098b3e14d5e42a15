package canon

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sortSpans must put any spans in order of their starts, keeping every span: a lost or doubled
// span would let an overlap through. Sizes cross the insertion runs and the merges (odd counts,
// a last run shorter than the others); starts repeat, and come in runs already in order, as the
// spans of one object walk often do.
func TestSortSpans(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var tmp []span
	for n := range 300 {
		for round := range 4 {
			spans := make([]span, n)
			for i := range spans {
				switch round {
				case 0: // anywhere
					spans[i].start = uintptr(rng.Uint64N(1 << 40))
				case 1: // few values: repeats
					spans[i].start = uintptr(rng.IntN(5))
				case 2: // in order
					spans[i].start = uintptr(i * 16)
				default: // runs in order, the runs anywhere
					if i%7 == 0 {
						spans[i].start = uintptr(rng.Uint64N(1 << 30))
					} else {
						spans[i].start = spans[i-1].start + 32
					}
				}
				spans[i].end = spans[i].start + 8
				spans[i].comp = i // tells the spans apart
			}
			want := slices.Clone(spans)
			slices.SortStableFunc(want, func(a, b span) int { return int(a.comp) - int(b.comp) })
			sortSpans(spans, &tmp)
			if !slices.IsSortedFunc(spans, func(a, b span) int {
				if a.start < b.start {
					return -1
				}
				if a.start > b.start {
					return 1
				}
				return 0
			}) {
				t.Fatalf("n=%d round %d: not in order: %v", n, round, spans)
			}
			got := slices.Clone(spans)
			slices.SortStableFunc(got, func(a, b span) int { return int(a.comp) - int(b.comp) })
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d round %d: spans lost or doubled", n, round)
			}
		}
	}
}
