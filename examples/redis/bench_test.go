package redis

import (
	"context"
	"os/exec"
	"testing"

	"github.com/cmc-go/cmc/engine"
)

// BenchmarkCheck is the checking rate of the fixed client (hits=4, timeouts=3) against the
// in-process fake and against redis-server (every op of a new path reaches the server or replays
// to it): states/s is reported per run.
//
//	go test ./examples/redis -run '^$' -bench Check -benchtime 3x
func BenchmarkCheck(b *testing.B) {
	o := Options{Fixed: true, Hits: 4, Timeouts: 3}
	run := func(b *testing.B, o Options) {
		var states int64
		for range b.N {
			m, err := New(o)
			if err != nil {
				b.Fatal(err)
			}
			r, err := engine.Check(context.Background(), m, engine.Options{SelfCheck: -1})
			if err != nil || len(r.Violations) > 0 || !r.Complete {
				b.Fatalf("%v %+v", err, r)
			}
			states += r.States
		}
		b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
		b.ReportMetric(float64(states)/float64(b.N), "states")
	}
	fake := o
	fake.Fake = true
	b.Run("fake", func(b *testing.B) { run(b, fake) })
	if _, err := exec.LookPath("redis-server"); err != nil {
		b.Skip("redis-server is not installed: apt-get install redis-server")
	}
	b.Run("redis-cold", func(b *testing.B) { run(b, o) })
}
