package twophase

import (
	"context"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
)

// BenchmarkCheck explores TwoPhase exhaustively; states/s and bytes per visited state are
// reported as metrics. RM=9 (10,340,352 states) takes minutes: run it with -bench=RM9. The
// SelfCheck variants measure the self-check's cost: off, the default sample (the first 2,000
// transitions) and every transition. The Workers variants expand each breadth-first level with one
// instance of the model (Workers1) or two; DepthFirst searches depth-first on one goroutine, and
// DepthFirst/Helper with a helper running part of each state's events (engine/forked.go); the
// others use one per core (GOMAXPROCS).
func BenchmarkCheck(b *testing.B) {
	for _, c := range []struct {
		name      string
		rm        int
		selfCheck int64
		workers   int
		search    string
	}{
		{"RM7", 7, 0, 0, ""}, {"RM9", 9, 0, 0, ""},
		{"RM7/SelfCheckOff", 7, -1, 0, ""}, {"RM7/SelfCheckAll", 7, engine.SelfCheckAll, 0, ""},
		{"RM8/Workers1", 8, 0, 1, ""}, {"RM8/Workers2", 8, 0, 2, ""},
		{"RM7/DepthFirst", 7, 0, 1, "dfs"}, {"RM8/DepthFirst", 8, 0, 1, "dfs"}, {"RM8/DepthFirst/Helper", 8, 0, 2, "dfs"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var res *engine.Result
			build := func() (*cmc.Model, error) { return New(c.rm), nil }
			for b.Loop() {
				var err error
				res, err = engine.Check(context.Background(), New(c.rm), engine.Options{SelfCheck: c.selfCheck, Workers: c.workers, Search: c.search, Build: build})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(res.States), "states")
			b.ReportMetric(float64(res.StoredBytes)/float64(res.States), "stored-B/state")
			b.ReportMetric(float64(res.FrontierBytes)/float64(res.States), "frontier-B/state")
		})
	}
}
