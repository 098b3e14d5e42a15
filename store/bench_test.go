package store

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
)

// benchSteps is the length of the benchmarks' trace.
const benchSteps = 100_000

// bigTrace is an AODV-like trace of benchSteps steps (see synth), made once.
var bigTrace = sync.OnceValue(func() *engine.Trace { return newSynth(42).trace(benchSteps) })

// BenchmarkAddTrace writes a 100,000-step trace per iteration and reports steps written per
// second and the database's size on disk per step (string tables and checkpoints included).
func BenchmarkAddTrace(b *testing.B) {
	tr := bigTrace()
	s, path := openTemp(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := s.AddTrace(0, tr, time.Time{}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n*len(tr.Steps))/b.Elapsed().Seconds(), "steps/s")
	if err := s.Close(); err != nil { // checkpoints the WAL into the file
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/float64(n*len(tr.Steps)), "B/step")
}

// storedBig is a database holding bigTrace, made once for the read benchmarks.
var storedBig = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "cmc-store-bench")
	if err != nil {
		return "", err
	}
	path := DefaultPath(dir)
	s, err := Open(path)
	if err != nil {
		return "", err
	}
	defer s.Close()
	_, err = s.AddTrace(0, bigTrace(), time.Time{})
	return path, err
})

// BenchmarkOpenStepState opens the database and fetches step N and State(N) of the stored
// 100,000-step trace, for N near the start, middle and end, and one N with the most diffs to apply (cold: a new Store each time, as a new debug session does), or only
// fetches them from an open Store (warm). Both should be milliseconds and not grow with N.
func BenchmarkOpenStepState(b *testing.B) {
	path, err := storedBig()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"start", 1}, {"middle", benchSteps / 2}, {"end", benchSteps - 1},
		{"most-diffs", benchSteps/2/CheckpointEvery*CheckpointEvery + CheckpointEvery - 1}} { // 63 diffs after a checkpoint
		b.Run("cold/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				fetch(b, s, c.n)
				s.Close()
			}
		})
		b.Run("warm/"+c.name, func(b *testing.B) {
			s, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			for b.Loop() {
				fetch(b, s, c.n)
			}
		})
	}
}

func fetch(b *testing.B, s *Store, n int) {
	if _, err := s.StepAt(1, n); err != nil {
		b.Fatal(err)
	}
	leaves, err := s.State(1, n)
	if err != nil || len(leaves) == 0 {
		b.Fatal(len(leaves), err)
	}
}
