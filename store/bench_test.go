package store

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	_ "github.com/cmc-go/cmc/examples/aodv" // registers AODVSpecBug
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

// aodvLoop is a 16-step routing loop of AODVSpecBug (the length of the shortest one, docs/aodv.md),
// found depth first to depth 16: seconds, where breadth first takes half a minute.
var aodvLoop = sync.OnceValues(func() (*engine.Trace, error) {
	m, err := cmc.Build("AODVSpecBug", nil)
	if err != nil {
		return nil, err
	}
	res, err := engine.Check(context.Background(), m, engine.Options{Search: "dfs", MaxDepth: 16})
	if err != nil {
		return nil, err
	}
	if len(res.Violations) != 1 || len(res.Violations[0].Steps) != 16 {
		return nil, fmt.Errorf("AODVSpecBug to depth 16: %d violations, want one 16-step loop", len(res.Violations))
	}
	return res.Violations[0], nil
})

// BenchmarkAODVTrace saves the 16-step AODV loop (a new trace each time: its initial hash
// differs, so the same-trace lookup runs and finds none) and reads it back whole (its string
// table too), on SQLite and on PostgreSQL over loopback:
//
//	go test -run '^$' -bench AODVTrace -benchtime 50x ./store
func BenchmarkAODVTrace(b *testing.B) {
	loop, err := aodvLoop()
	if err != nil {
		b.Fatal(err)
	}
	for _, backend := range []struct {
		name string
		open opener
	}{{"sqlite", openTemp}, {"postgres", openPostgresTemp}} {
		s, _ := backend.open(b)
		var id int64
		b.Run(backend.name+"/save", func(b *testing.B) {
			tr := *loop
			for b.Loop() {
				tr.InitHash++
				if id, err = s.AddTrace(0, &tr, time.Time{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(backend.name+"/read", func(b *testing.B) {
			for b.Loop() {
				s.mu.Lock()
				clear(s.heads)
				s.mu.Unlock()
				if t, _, err := s.Trace(id); err != nil || len(t.Steps) != 16 {
					b.Fatal(err)
				}
			}
		})
	}
}
