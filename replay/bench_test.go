package replay

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	_ "github.com/cmc-go/cmc/examples/aodv" // registers AODV
)

// The benchmarks replay a 100,000-step random walk of the fixed AODV model (examples/aodv: four
// routers, the air, no bounds on requests, faults or sequence numbers, and seen RREQs forgotten
// once their flood is over, so the state stays a few hundred leaves):
// go test ./replay -run '^$' -bench . -benchmem -benchtime 2s

const longSteps = 100_000

const longModel = "AODV"

var longParams = map[string]string{"requests": "-1", "faults": "-1", "seq": "1000000", "rreq": "1000000", "forget": "true"}

var long struct {
	once sync.Once
	t    *engine.Trace
	err  error
}

func longTrace(b *testing.B) *engine.Trace {
	long.once.Do(func() {
		m, err := cmc.Build(longModel, longParams)
		if err != nil {
			long.err = err
			return
		}
		res, err := engine.Check(context.Background(), m, engine.Options{Search: "random", Steps: longSteps, Keep: true, Seed: 1})
		if err != nil {
			long.err = err
			return
		}
		long.t = res.Walk
		if len(long.t.Steps) != longSteps {
			long.err = errors.New("the walk stopped early")
		}
	})
	if long.err != nil {
		b.Fatal(long.err)
	}
	return long.t
}

func openLong(b *testing.B) *Session {
	t := longTrace(b)
	s, err := Open(build(b, longModel, longParams), t)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

// BenchmarkOpen is opening the trace: replaying and verifying all 100,000 steps. live-B is
// what an open session keeps (its states and the machine's interned encodings).
func BenchmarkOpen(b *testing.B) {
	t := longTrace(b)
	b.ReportAllocs()
	var live uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := Open(build(b, longModel, longParams), t)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		live = after.HeapAlloc - before.HeapAlloc
		s.Close()
	}
	b.ReportMetric(float64(live), "live-B")
}

var places = []struct {
	name string
	step int
}{{"start", 1}, {"middle", longSteps / 2}, {"end", longSteps}}

// BenchmarkGoTo is a jump to a step, which re-runs that step to prove it again.
func BenchmarkGoTo(b *testing.B) {
	s := openLong(b)
	for _, p := range places {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.GoTo(p.step); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkStep(b *testing.B) {
	s := openLong(b)
	for _, p := range places[:2] {
		b.Run(p.name, func(b *testing.B) {
			if err := s.GoTo(p.step); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Step(); err != nil {
					if err := s.GoTo(p.step); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func BenchmarkStepBack(b *testing.B) {
	s := openLong(b)
	for _, p := range places[1:] {
		b.Run(p.name, func(b *testing.B) {
			if err := s.GoTo(p.step); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Back(); err != nil {
					if err := s.GoTo(p.step); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkDiff is one step's diff computed from the replayed states (both flattened afresh).
func BenchmarkDiff(b *testing.B) {
	s := openLong(b)
	n := longSteps / 2
	if err := s.use(); err != nil {
		b.Fatal(err)
	}
	defer s.done()
	b.ReportAllocs()
	for b.Loop() {
		before, err := s.mc.Leaves(s.state(n - 1))
		if err != nil {
			b.Fatal(err)
		}
		after, err := s.mc.Leaves(s.state(n))
		if err != nil {
			b.Fatal(err)
		}
		if len(canon.Diff(before, after)) == 0 {
			b.Fatal("no diff")
		}
	}
}

// BenchmarkGraph is one step's heap graph, marked with its diff.
func BenchmarkGraph(b *testing.B) {
	s := openLong(b)
	n := longSteps / 2
	changes := s.t.Steps[n-1].Changes
	if err := s.use(); err != nil {
		b.Fatal(err)
	}
	defer s.done()
	b.ReportAllocs()
	for b.Loop() {
		g, err := s.mc.Graph(s.state(n))
		if err != nil {
			b.Fatal(err)
		}
		g.Mark(changes)
	}
}

// BenchmarkView is the whole view at a step the session has not shown lately (graph, leaves,
// diff, environment), as the debugger asks for after a jump.
func BenchmarkView(b *testing.B) {
	s := openLong(b)
	n := longSteps / 2
	b.ReportAllocs()
	for b.Loop() {
		n++
		if n > longSteps {
			n = longSteps / 2
		}
		if err := s.GoTo(n); err != nil {
			b.Fatal(err)
		}
		s.mu.Lock()
		clear(s.cache)
		s.mu.Unlock()
		if _, err := s.View(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWalk is the random walk that makes the long trace, per step: searching alone, and
// searching then recording the trace (notes, state hashes and each step's changes), as
// cmcdap check -search random -keep does.
func BenchmarkWalk(b *testing.B) {
	const steps = 10_000
	for _, keep := range []bool{false, true} {
		name := "search"
		if keep {
			name = "search+record"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := engine.Check(context.Background(), build(b, longModel, longParams), engine.Options{Search: "random", Steps: steps, Keep: keep, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				if res.Depth != steps {
					b.Fatalf("the walk stopped after %d steps", res.Depth)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
		})
	}
}
