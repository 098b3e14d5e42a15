package engine

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/examples/twophase"
)

// TestSwarmSameResult: a swarm whose members run on 2 or 4 goroutines gives the result of one
// goroutine exactly: the counts, completeness, scenarios, and every violation's trace step by step.
func TestSwarmSameResult(t *testing.T) {
	for _, c := range swarmCases() {
		t.Run(c.name, func(t *testing.T) {
			opts, want := c.oneGoroutine(t)
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

type swarmCase struct {
	name       string
	build      func() *cmc.Model
	opts       Options
	violations int // the one goroutine's, so the comparison is not of empty results
}

// oneGoroutine checks the case with its members on one goroutine, the result the others must
// give, and returns the options it used.
func (c swarmCase) oneGoroutine(t *testing.T) (Options, *Result) {
	t.Helper()
	opts := c.opts
	opts.Workers = 1
	want, err := Check(context.Background(), c.build(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Violations) != c.violations {
		t.Fatalf("one goroutine: %d violations, want %d", len(want.Violations), c.violations)
	}
	return opts, want
}

// swarmCases are swarms over models with violations, bounds, scenarios and goals.
func swarmCases() []swarmCase {
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
	return []swarmCase{
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
}

// TestSwarmOverProcesses: a swarm whose members are spread over 2 or 3 "processes" (each a
// CheckSwarm with an instance of the model of its own, member i in process i mod n, meeting
// through an in-memory share that passes members as their wire form; a process skips its members
// after one that an earlier process found stopping the swarm) gives the one-process
// swarm's result exactly, in the process that merges: the counts, completeness, scenarios, and
// every violation's trace step by step; also with 5 members, and with 2 goroutines a process.
func TestSwarmOverProcesses(t *testing.T) {
	cases := swarmCases()
	cases = append(cases,
		swarmCase{"grid, invariant, 5 members", func() *cmc.Model { return gridModel("invariant") }, Options{Search: "swarm", SelfCheck: -1, MaxStates: 2000, Seed: 1, Members: 5}, 1},
		swarmCase{"TwoPhase RM=4, 13 members, state bound", func() *cmc.Model { return twophase.New(4) }, Options{Search: "swarm", SelfCheck: -1, MaxStates: 3000, Members: 13}, 0})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts, want := c.oneGoroutine(t)
			for _, run := range []struct{ processes, workers int }{{2, 1}, {3, 1}, {2, 2}} {
				o := opts
				o.Workers = run.workers
				o.Build = func() (*cmc.Model, error) { return c.build(), nil }
				hub := newSwarmHub(o.members())
				// One machine at a time in a process (transition.Lock): the "processes" run one after
				// another, process 0, which waits for the others' members, last.
				var res *Result
				for _, k := range append(rangeFrom(1, run.processes), 0) {
					var err error
					if res, err = CheckSwarm(context.Background(), c.build(), o, &hubShare{hub, k, run.processes}); err != nil {
						t.Fatalf("%d processes, process %d: %v", run.processes, k, err)
					}
				}
				if diff := resultDiff(want, res); diff != "" {
					t.Errorf("%d processes of %d goroutines: result differs from one process's:\n%s", run.processes, run.workers, diff)
				}
				if hub.done == 0 {
					t.Errorf("%d processes: no member told of its end", run.processes)
				}
			}
		})
	}
}

func rangeFrom(a, b int) []int {
	var out []int
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// A swarmHub is where the processes of TestSwarmOverProcesses meet.
type swarmHub struct {
	mu      sync.Mutex
	changed *sync.Cond
	found   map[int][]byte // member -> what it found, encoded
	stop    int            // the least member that stopped the swarm
	running map[int]context.CancelFunc
	done    int
}

func newSwarmHub(members int) *swarmHub {
	h := &swarmHub{found: map[int][]byte{}, stop: members, running: map[int]context.CancelFunc{}}
	h.changed = sync.NewCond(&h.mu)
	return h
}

type hubShare struct {
	hub  *swarmHub
	k, n int
}

func (s *hubShare) Runs(i int) bool { return i%s.n == s.k }
func (s *hubShare) Merges() bool    { return s.k == 0 }
func (s *hubShare) Progress(int, Progress) {
}

func (s *hubShare) Start(ctx context.Context, i int) (context.Context, context.CancelFunc) {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stop < i {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	h.running[i] = cancel
	return ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.running, i)
		cancel()
	}
}

func (s *hubShare) Finished(w *SwarmMember) error {
	b, err := w.MarshalBinary()
	if err != nil {
		return err
	}
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	h.found[w.Index] = b
	h.done++
	if w.Decides() && w.Index < h.stop {
		h.stop = w.Index
		for j, cancel := range h.running {
			if j > w.Index {
				cancel()
			}
		}
	}
	h.changed.Broadcast()
	return nil
}

func (s *hubShare) Member(ctx context.Context, i int) (*SwarmMember, error) {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.found[i] == nil {
		h.changed.Wait()
	}
	var w SwarmMember
	return &w, w.UnmarshalBinary(h.found[i])
}

// TestSwarmMemberWire: a member's result survives its wire form, and a cut or foreign one is an
// error, not a panic.
func TestSwarmMemberWire(t *testing.T) {
	w := &SwarmMember{Index: 3, Result: &Result{States: 7, Transitions: 9}, Runs: []int64{1, 2}, Stop: true, Hashes: []uint64{1, 1 << 63}}
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got SwarmMember
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, w) {
		t.Errorf("got %+v %+v, want %+v %+v", got, *got.Result, *w, *w.Result)
	}
	for _, bad := range [][]byte{nil, {9}, b[:5], b[:len(b)-3]} {
		if err := new(SwarmMember).UnmarshalBinary(bad); err == nil {
			t.Errorf("%d bytes decoded", len(bad))
		}
	}
}
