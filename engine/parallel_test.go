package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cmc-go/cmc"
	_ "github.com/cmc-go/cmc/examples/aodv" // registers AODV and AODVSpecBug
	"github.com/cmc-go/cmc/examples/twophase"
)

// errStuck is a package-level error the "global" grids keep in their state: canon captures it as
// a reference to this very variable, which every instance of the model shares.
var errStuck = errors.New("stuck")

type axis struct {
	N   int
	Err error
}

// gridModel: three processes each count up to n by 1 or 2 (a Choose), so levels are wide enough
// for workers; kind adds a finding or a bound somewhere deep.
func gridModel(kind string) *cmc.Model {
	const n = 16
	var ax [3]*axis
	m := cmc.NewModel("grid-" + kind)
	for i, name := range []string{"x", "y", "z"} {
		a := &axis{}
		ax[i] = a
		if kind == "global-init" && i == 0 {
			a.Err = errStuck
		}
		p := m.Process(name, a)
		p.On("up", func() {
			a.N += 1 + cmc.Choose(2)
			if kind == "global" && a.N == 9 {
				a.Err = errStuck
			}
			if (kind == "goexit" && i == 1 || kind == "goexit-z" && i == 2) && ax[0].N == 13 && a.N == 10 {
				runtime.Goexit() // as t.FailNow in a handler does
			}
			if kind == "assert" && i == 2 {
				cmc.Assert(!(ax[0].N == 11 && ax[1].N == 7 && a.N == 9), "z reached 9 at (11, 7)")
			}
		}, cmc.When(func() bool {
			if kind == "goexit-when" && i == 2 && ax[0].N == 13 && ax[1].N == 10 {
				runtime.Goexit() // in an enabling condition
			}
			return a.N < n
		}))
	}
	x, y, z := ax[0], ax[1], ax[2]
	switch kind {
	case "invariant", "all":
		m.Invariant("not-diagonal", func() error {
			if x.N == 12 && y.N == 12 && z.N >= 5 {
				return fmt.Errorf("x and y are both 12, z %d", z.N)
			}
			return nil
		})
		if kind == "all" {
			m.Invariant("z-not-13", func() error {
				if z.N == 13 && x.N > 2 {
					return errors.New("z is 13")
				}
				return nil
			})
		}
	case "goexit-invariant":
		m.Invariant("exits", func() error {
			if x.N == 13 && y.N == 10 {
				runtime.Goexit() // on what a run left
			}
			return nil
		})
	case "deadlock":
		m.DeadlockIsError()
	case "bound":
		m.Bound(cmc.TypeName[axis](), "N", 12)
	case "scenario":
		m.Sometimes("corner", func() bool { return x.N >= 12 && y.N >= 12 && z.N >= 3 }, func() int { return x.N + y.N + z.N })
		m.Sometimes("never", func() bool { return x.N > n+1 }, func() int { return x.N - y.N })
	case "constraint":
		m.Constraint("x+y", func() bool { return x.N+y.N <= 20 })
	case "step":
		cmc.StepInvariant(m, "z-small-steps-late", func() int { return z.N }, func(b, a int) error {
			if b >= 10 && a-b == 2 && x.N > 7 {
				return fmt.Errorf("z went from %d to %d", b, a)
			}
			return nil
		})
	}
	return m
}

func aodvModel(name string) func() *cmc.Model {
	return func() *cmc.Model {
		m, err := cmc.Build(name, map[string]string{"nodes": "3"})
		if err != nil {
			panic(err)
		}
		return m
	}
}

// TestParallelSameResult: expanding levels with workers, or a depth-first search's states with a
// helper (forked.go), gives the sequential search's result, exactly: the counts, the depth,
// completeness, and every violation's trace step by step (events, Choose values and sites, hashes,
// changes).
func TestParallelSameResult(t *testing.T) {
	models := sameResultModels(t)
	for _, search := range []string{"bfs", "dfs"} {
		for _, c := range models {
			c.opts.Search = search
			sameResult(t, search+"/"+c.name, c.build, c.opts, c.parallel)
		}
	}
	// The helper paused and resumed every few states (pacer.go): probes force both, and the
	// clock picks either for the rest of each cycle.
	p := pacing
	pacing.block, pacing.blocks, pacing.cycle = 2, 4, 13
	for _, c := range models {
		c.opts.Search = "dfs"
		sameResult(t, "dfs, helper paused every few states/"+c.name, c.build, c.opts, c.parallel)
	}
	pacing = p
	// On one core the depth-first search's helper runs only when the search waits for it, so the
	// search mostly takes its jobs back (forked.take), and sometimes not.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, c := range models {
		c.opts.Search = "dfs"
		sameResult(t, "dfs, one core/"+c.name, c.build, c.opts, c.parallel)
	}
}

// A sameResultModel is a model whose result must not depend on how the search is carried out.
type sameResultModel struct {
	name     string
	build    func() *cmc.Model
	opts     Options
	parallel bool // workers must have been started
}

// sameResultModels are the models TestParallelSameResult checks: every kind of finding, bound and
// option a search's order matters to.
func sameResultModels(t *testing.T) []sameResultModel {
	type model = sameResultModel
	grid := func(kind string) func() *cmc.Model { return func() *cmc.Model { return gridModel(kind) } }
	off := Options{SelfCheck: -1}
	models := []model{
		{"TwoPhase RM=5", func() *cmc.Model { return twophase.New(5) }, off, true},
		{"TwoPhase RM=4, default self-check", func() *cmc.Model { return twophase.New(4) }, Options{}, true},
		{"AODV nodes=3", aodvModel("AODV"), off, true},
		{"AODVSpecBug nodes=3", aodvModel("AODVSpecBug"), off, true},
		{"grid (Choose)", grid("choose"), off, true},
		{"grid, exact", grid("choose"), Options{SelfCheck: -1, Exact: true}, true},
		{"grid, invariant", grid("invariant"), off, true},
		{"grid, invariant, all", grid("all"), Options{SelfCheck: -1, All: true}, true},
		{"grid, assertion", grid("assert"), off, true},
		{"grid, step invariant", grid("step"), off, true},
		{"grid, deadlock", grid("deadlock"), off, true},
		{"grid, constraint", grid("constraint"), off, true},
		{"grid, bound", grid("bound"), off, true},
		{"grid, scenarios", grid("scenario"), off, true},
		{"grid, scenario as the goal", grid("scenario"), Options{SelfCheck: -1, Goal: "corner"}, true},
		{"AODVChain nodes=4, scenario", func() *cmc.Model {
			m, err := cmc.Build("AODVChain", map[string]string{"nodes": "4"})
			if err != nil {
				panic(err)
			}
			return m
		}, off, true},
		{"grid, state bound", grid("choose"), Options{SelfCheck: -1, MaxStates: 1500}, true},
		{"grid, state bound, all", grid("all"), Options{SelfCheck: -1, MaxStates: 3000, All: true}, true},
		{"grid, depth bound", grid("constraint"), Options{SelfCheck: -1, MaxDepth: 14}, true},
		{"grid, global from the start", grid("global-init"), off, false},
		{"grid, global met on the way", grid("global"), off, true},
	}
	// A search from a stored trace's fifth state (a bookmark).
	res, err := Check(context.Background(), gridModel("invariant"), Options{SelfCheck: -1})
	if err != nil || len(res.Violations) == 0 {
		t.Fatalf("no trace to start from: %v", err)
	}
	return append(models, model{"grid, from a trace's fifth state", grid("all"),
		Options{SelfCheck: -1, From: res.Violations[0], FromSteps: 5}, true})
}

// sameResult checks build's model with opts on one goroutine and with 2 and 4 workers, and
// compares the results; parallel says whether workers must have been started.
func sameResult(t *testing.T, name string, build func() *cmc.Model, opts Options, parallel bool) {
	t.Run(name, func(t *testing.T) {
		opts.Workers = 1
		want, err := Check(context.Background(), build(), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 4} {
			var builds atomic.Int64
			opts.Workers = workers
			opts.Build = func() (*cmc.Model, error) { builds.Add(1); return build(), nil }
			got, err := Check(context.Background(), build(), opts)
			if err != nil {
				t.Fatalf("%d workers: %v", workers, err)
			}
			if started := builds.Load() > 0; started != parallel {
				t.Errorf("%d workers: started %v, want %v", workers, started, parallel)
			}
			if diff := resultDiff(want, got); diff != "" {
				t.Errorf("%d workers: result differs from one worker's:\n%s", workers, diff)
			}
		}
	})
}

// resultDiff says how got differs from want, but for StoredBytes: workers intern the successors of
// the states they expand past the point where a search stops.
func resultDiff(want, got *Result) string {
	w, g := *want, *got
	w.StoredBytes, g.StoredBytes = 0, 0
	w.Violations, g.Violations = nil, nil
	var b strings.Builder
	if !reflect.DeepEqual(w, g) {
		fmt.Fprintf(&b, "one worker: %+v\nworkers:    %+v\n", w, g)
	}
	if len(want.Violations) != len(got.Violations) {
		fmt.Fprintf(&b, "%d violations, want %d\n", len(got.Violations), len(want.Violations))
	}
	for i := range min(len(want.Violations), len(got.Violations)) {
		wt, gt := want.Violations[i], got.Violations[i]
		if !reflect.DeepEqual(wt.Violation, gt.Violation) || wt.InitHash != gt.InitHash || len(wt.Steps) != len(gt.Steps) {
			fmt.Fprintf(&b, "violation %d: %+v after %d steps, want %+v after %d\n", i, gt.Violation, len(gt.Steps), wt.Violation, len(wt.Steps))
			continue
		}
		for j := range wt.Steps {
			if !reflect.DeepEqual(wt.Steps[j], gt.Steps[j]) {
				fmt.Fprintf(&b, "violation %d step %d: %+v, want %+v\n", i, j+1, gt.Steps[j], wt.Steps[j])
			}
		}
		if !reflect.DeepEqual(wt, gt) {
			fmt.Fprintf(&b, "violation %d: traces differ outside their steps\n", i)
		}
	}
	return b.String()
}

// TestParallelGoexit: a handler that calls runtime.Goexit ends the search's goroutine after the
// same transitions, with the same run published last, with workers as without, for breadth-first
// levels and swarm members alike (a member that meets it on a goroutine of its own makes the swarm
// run its members again on the search's goroutine): the worker process reports that run, and the
// coordinator traces it.
func TestParallelGoexit(t *testing.T) {
	// Depth-first, the state whose run calls Goexit is expanded by the helper or by the search,
	// as the two goroutines' timing has it (forked.go): either way the search ends alike.
	// A Goexit in an enabling condition or an invariant publishes the run the sequential search
	// published last.
	var cases []struct{ search, kind string }
	for _, search := range []string{"bfs", "swarm", "dfs"} {
		for _, kind := range []string{"goexit", "goexit-when", "goexit-invariant"} {
			cases = append(cases, struct{ search, kind string }{search, kind})
		}
	}
	cases = append(cases, struct{ search, kind string }{"dfs", "goexit-z"})
	for _, c := range cases {
		search, kind := c.search, c.kind
		check := func(workers int) (exited bool, last Position) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				exited = true
				Check(context.Background(), gridModel(kind), Options{Search: search, SelfCheck: -1, Workers: workers,
					Build: func() (*cmc.Model, error) { return gridModel(kind), nil },
					Begin: func(state int64, event, attempt int) { last = Position{state, event, attempt} },
				})
				exited = false
			}()
			<-done
			return exited, last
		}
		wantExit, want := check(1)
		if !wantExit {
			t.Fatalf("%s %s, one worker: the search returned; want the handler's Goexit to end it", search, kind)
		}
		for _, workers := range []int{2, 4} {
			if exited, last := check(workers); !exited || last != want {
				t.Errorf("%s %s, %d workers: Goexit %v at %+v; want true at %+v", search, kind, workers, exited, last, want)
			}
		}
	}
}
