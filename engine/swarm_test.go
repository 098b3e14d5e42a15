package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/examples/twophase"
)

// TestSwarmSameResult: a swarm whose members run on 2 or 4 goroutines gives the result of one
// goroutine exactly: the counts, completeness, scenarios, and every violation's trace step by step.
func TestSwarmSameResult(t *testing.T) {
	grid := func(kind string) func() *cmc.Model { return func() *cmc.Model { return gridModel(kind) } }
	walk := func(kind string) func() *cmc.Model {
		return func() *cmc.Model { m, _ := walkerModel(kind); return m }
	}
	scaled := func(name string, nodes int) func() *cmc.Model {
		return func() *cmc.Model {
			m, err := cmc.Build(name, map[string]string{"nodes": fmt.Sprint(nodes)})
			if err != nil {
				panic(err)
			}
			return m
		}
	}
	swarm := func(o Options) Options {
		o.Search = "swarm"
		if o.SelfCheck == 0 {
			o.SelfCheck = -1
		}
		return o
	}
	cases := []struct {
		name       string
		build      func() *cmc.Model
		opts       Options
		violations int // the one goroutine's, so the comparison is not of empty results
	}{
		{"AODVChain nodes=3, scenario", scaled("AODVChain", 3), swarm(Options{}), 0},
		{"AODVChain nodes=4, depth bound", scaled("AODVChain", 4), swarm(Options{MaxDepth: 60}), 1},
		{"AODVChain nodes=4, seed 9, depth bound", scaled("AODVChain", 4), swarm(Options{MaxDepth: 60, Seed: 9}), 1},
		{"AODVChain nodes=4, all, state bound", scaled("AODVChain", 4), swarm(Options{All: true, MaxStates: 40000}), 2},
		{"AODVChain nodes=4, goal", scaled("AODVChain", 4), swarm(Options{Goal: "route found", MaxDepth: 60}), 0},
		{"AODV nodes=3, state bound", aodvModel("AODV"), swarm(Options{MaxStates: 4000}), 0},
		{"TwoPhase RM=3, default self-check", func() *cmc.Model { return twophase.New(3) }, swarm(Options{SelfCheck: 0}), 0},
		{"grid, invariant, all, state bound", grid("all"), swarm(Options{All: true, MaxStates: 2000, Seed: 3}), 2},
		// A later member finds the violation: the members before it count, those after it not.
		{"grid, invariant found by member 3", grid("invariant"), swarm(Options{MaxStates: 2000, Seed: 1}), 1},
		{"grid, invariant found by member 2", grid("invariant"), swarm(Options{MaxStates: 2000, Seed: 4}), 1},
		{"grid, assertion", grid("assert"), swarm(Options{Seed: 11}), 1},
		{"grid, step invariant, exact", grid("step"), swarm(Options{Exact: true, Seed: 2}), 1},
		{"grid, deadlock, all", grid("deadlock"), swarm(Options{All: true}), 1},
		{"grid, constraint, depth bound", grid("constraint"), swarm(Options{MaxDepth: 20}), 0},
		{"grid, global met on the way (run again on one goroutine)", grid("global"), swarm(Options{Seed: 6, MaxStates: 8000}), 0},
		{"walker, scenarios", walk("scenarios"), swarm(Options{}), 0},
		{"walker, goal", walk("scenarios"), swarm(Options{Goal: "corner", Seed: 4}), 0},
		{"walker, two violations, all", walk("two"), swarm(Options{All: true, MaxStates: 40, Seed: 5}), 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			opts.Workers = 1
			want, err := Check(context.Background(), c.build(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Violations) != c.violations {
				t.Fatalf("one goroutine: %d violations, want %d", len(want.Violations), c.violations)
			}
			for _, workers := range []int{2, 4} {
				var builds atomic.Int64
				opts.Workers = workers
				opts.Build = func() (*cmc.Model, error) { builds.Add(1); return c.build(), nil }
				got, err := Check(context.Background(), c.build(), opts)
				if err != nil {
					t.Fatalf("%d workers: %v", workers, err)
				}
				if builds.Load() == 0 {
					t.Errorf("%d workers: the members ran on one goroutine", workers)
				}
				if diff := resultDiff(want, got); diff != "" {
					t.Errorf("%d workers: result differs from one goroutine's:\n%s", workers, diff)
				}
			}
		})
	}
}

// BenchmarkSwarm: a swarm over the AODV grid of 8 nodes, bounded at 200,000 states, on one
// goroutine and on two (docs/search.md): go test -run X -bench Swarm -benchtime 1x ./engine
func BenchmarkSwarm(b *testing.B) {
	build := func() (*cmc.Model, error) { return cmc.Build("AODVGrid", map[string]string{"nodes": "8"}) }
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				m, err := build()
				if err != nil {
					b.Fatal(err)
				}
				res, err := Check(context.Background(), m, Options{Search: "swarm", MaxStates: 200000, MaxDepth: 200,
					Seed: 1, Workers: workers, Build: build})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.States), "states")
				b.ReportMetric(float64(res.Transitions), "transitions")
			}
		})
	}
}
