package engine

import (
	"context"
	"testing"

	"github.com/cmc-go/cmc"
)

// TestDeferredSameResult: putting visited lookups off (deferred.go) changes nothing a search
// reports: the counts, the depth, completeness and every violation's trace are those of the search
// that looks each successor up at once, on one goroutine, with breadth-first workers and with the
// depth-first helper. The tables here are small, so the test makes every table count as large.
func TestDeferredSameResult(t *testing.T) {
	defer func(n int) { largeTable = n }(largeTable)
	for _, search := range []string{"bfs", "dfs"} {
		for _, c := range sameResultModels(t) {
			c.opts.Search = search
			t.Run(search+"/"+c.name, func(t *testing.T) {
				opts := c.opts
				opts.Workers = 1
				largeTable = 1 << 62
				want, err := Check(context.Background(), c.build(), opts)
				if err != nil {
					t.Fatal(err)
				}
				largeTable = 0
				for _, workers := range []int{1, 2} {
					opts.Workers = workers
					opts.Build = func() (*cmc.Model, error) { return c.build(), nil }
					got, err := Check(context.Background(), c.build(), opts)
					if err != nil {
						t.Fatalf("%d workers: %v", workers, err)
					}
					if diff := resultDiff(want, got); diff != "" {
						t.Errorf("%d workers, lookups deferred: the result differs:\n%s", workers, diff)
					}
				}
			})
		}
	}
}
