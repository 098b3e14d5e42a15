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

// BenchmarkCheckPrefix explores the first 30,000 states of the same search on one worker, short
// enough to count instructions under callgrind (docs/performance.md, "etcd raft"):
// GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind ./etcdraft.test -test.run '^$'
// -test.bench CheckPrefix -test.benchtime 1x -test.cpu 1
func BenchmarkCheckPrefix(b *testing.B) {
	for b.Loop() {
		res, err := engine.Check(context.Background(), New("EtcdRaft", Defaults, false), engine.Options{Workers: 1, MaxStates: 30000})
		if err != nil {
			b.Fatal(err)
		}
		if res.States != 30000 {
			b.Fatalf("%d states, want the first 30000", res.States)
		}
	}
}
