package etcdraft

import (
	"context"
	"testing"

	"github.com/cmc-go/cmc/engine"
)

// BenchmarkCheck explores EtcdRaft within Defaults (118,422 states) and reports states/s and the
// bytes the search keeps per state, as examples/twophase's benchmark does:
// go test -run '^$' -bench . -benchmem -benchtime 1x ./... (in examples/etcdraft).
func BenchmarkCheck(b *testing.B) {
	var res *engine.Result
	for b.Loop() {
		var err error
		res, err = engine.Check(context.Background(), New("EtcdRaft", Defaults, false), engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
	b.ReportMetric(float64(res.States), "states")
	b.ReportMetric(float64(res.StoredBytes)/float64(res.States), "stored-B/state")
}
