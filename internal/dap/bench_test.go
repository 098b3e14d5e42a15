package dap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// The benchmarks measure what a user waits for on a long trace: a 100,000-step random walk of a
// model with three processes (about 130 leaves of state), stored in SQLite, debugged over an
// in-process pipe. Each reports the median and 99th percentile latency of one user action,
// from the request to the stop (or response) the editor waits for:
//
//	go test -run '^$' -bench . -benchtime 2000x ./internal/dap

const benchSteps = 100_000

// walkModel never dead-ends: every process can always tick.
func walkModel() *cmc.Model {
	type node struct {
		Count int
		Seen  map[int]int
		Hist  [32]int
	}
	m := cmc.NewModel("Walk")
	for i := range 3 {
		n := &node{Seen: map[int]int{}}
		m.Process(fmt.Sprintf("n%d", i), n).On("tick", func() {
			v := cmc.Choose(4)
			n.Count = (n.Count + v + 1) % 1000
			n.Seen[v] = n.Count
			n.Hist[n.Count%32] = v
		})
	}
	return m
}

var benchTrace struct {
	once sync.Once
	db   string
	id   int64
	err  error
}

// longTrace stores the walk once per test binary run.
func longTrace(b *testing.B) (string, int64) {
	benchTrace.once.Do(func() {
		dir, err := os.MkdirTemp("", "cmc-dap-bench-")
		if err != nil {
			benchTrace.err = err
			return
		}
		res, err := engine.Check(context.Background(), walkModel(), engine.Options{Search: "random", Steps: benchSteps, Keep: true, Seed: 7})
		if err != nil {
			benchTrace.err = err
			return
		}
		benchTrace.db = filepath.Join(dir, "traces.db")
		db, err := store.Open(benchTrace.db)
		if err != nil {
			benchTrace.err = err
			return
		}
		defer db.Close()
		benchTrace.id, benchTrace.err = db.AddTrace(0, res.Walk, time.Time{})
	})
	if benchTrace.err != nil {
		b.Fatal(benchTrace.err)
	}
	return benchTrace.db, benchTrace.id
}

// launchLong starts a session on the long trace, stopped at its start.
func launchLong(b *testing.B) *daptest.Client {
	db, id := longTrace(b)
	c := start(b, Config{})
	initialize(b, c)
	c.LaunchRequest(map[string]any{"trace": id, "db": db})
	daptest.Expect[*dap.InitializedEvent](b, c)
	daptest.Expect[*dap.LaunchResponse](b, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](b, c)
	daptest.Expect[*dap.StoppedEvent](b, c)
	return c
}

// latencies collects one duration per iteration and reports percentiles.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	slices.Sort(l)
	at := func(q float64) float64 { return float64(l[min(int(q*float64(len(l))), len(l)-1)].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-us")
	b.ReportMetric(at(0.99), "p99-us")
}

func timed(b *testing.B, setup func(i int), op func(i int)) {
	l := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if setup != nil {
			setup(i)
		}
		b.StartTimer()
		t0 := time.Now()
		op(i)
		l = append(l, time.Since(t0))
	}
	b.StopTimer()
	l.report(b)
}

// gotoStep moves the session to step n and returns the stop.
func gotoStep(t testing.TB, c *daptest.Client, n int) *dap.StoppedEvent {
	t.Helper()
	c.Send("cmc/gotoStep", map[string]any{"step": n})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	return daptest.ExpectStopped(t, c, "goto")
}

func BenchmarkFirstStop(b *testing.B) {
	db, id := longTrace(b)
	timed(b, nil, func(int) {
		c := start(b, Config{})
		initialize(b, c)
		c.LaunchRequest(map[string]any{"trace": id, "db": db})
		daptest.Expect[*dap.InitializedEvent](b, c)
		daptest.Expect[*dap.LaunchResponse](b, c)
		c.ConfigurationDoneRequest()
		daptest.Expect[*dap.ConfigurationDoneResponse](b, c)
		daptest.Expect[*dap.StoppedEvent](b, c)
		// The editor's next questions: threads, the top of the stack, its scopes.
		c.ThreadsRequest()
		daptest.Expect[*dap.ThreadsResponse](b, c)
		c.StackTraceRequest(1, 0, 1)
		f := daptest.Expect[*dap.StackTraceResponse](b, c).Body.StackFrames[0]
		c.ScopesRequest(f.Id)
		daptest.Expect[*dap.ScopesResponse](b, c)
		c.DisconnectRequest()
		daptest.Expect[*dap.DisconnectResponse](b, c)
	})
}

func BenchmarkNext(b *testing.B) {
	c := launchLong(b)
	rng := rand.New(rand.NewPCG(1, 2))
	timed(b, func(int) { gotoStep(b, c, rng.IntN(benchSteps)) }, func(int) {
		c.NextRequest(1)
		daptest.Expect[*dap.NextResponse](b, c)
		daptest.Expect[*dap.StoppedEvent](b, c)
	})
}

func BenchmarkStepBack(b *testing.B) {
	c := launchLong(b)
	rng := rand.New(rand.NewPCG(1, 2))
	timed(b, func(int) { gotoStep(b, c, 1+rng.IntN(benchSteps)) }, func(int) {
		c.StepBackRequest(1)
		daptest.Expect[*dap.StepBackResponse](b, c)
		daptest.Expect[*dap.StoppedEvent](b, c)
	})
}

func BenchmarkGotoStep(b *testing.B) {
	c := launchLong(b)
	rng := rand.New(rand.NewPCG(1, 2))
	timed(b, nil, func(int) { gotoStep(b, c, rng.IntN(benchSteps+1)) })
}

// BenchmarkStackTrace asks for the top 20 frames, as VS Code does after a stop.
func BenchmarkStackTrace(b *testing.B) {
	c := launchLong(b)
	rng := rand.New(rand.NewPCG(1, 2))
	timed(b, func(int) { gotoStep(b, c, rng.IntN(benchSteps+1)) }, func(int) {
		c.StackTraceRequest(1, 0, 20)
		daptest.Expect[*dap.StackTraceResponse](b, c)
	})
}

// BenchmarkVariables is what the Variables pane costs after a stop at a random step: the scopes,
// the processes, and one process's fields (the state is read from the store here).
func BenchmarkVariables(b *testing.B) {
	c := launchLong(b)
	rng := rand.New(rand.NewPCG(1, 2))
	timed(b, func(int) { gotoStep(b, c, rng.IntN(benchSteps+1)) }, func(int) {
		c.ScopesRequest(0)
		state := daptest.Expect[*dap.ScopesResponse](b, c).Body.Scopes[0].VariablesReference
		c.VariablesRequest(state)
		procs := daptest.Expect[*dap.VariablesResponse](b, c).Body.Variables
		c.VariablesRequest(procs[0].VariablesReference)
		daptest.Expect[*dap.VariablesResponse](b, c)
	})
}

// BenchmarkContinue runs from the start to a data breakpoint that never hits: a walk over the
// whole trace.
func BenchmarkContinue(b *testing.B) {
	c := launchLong(b)
	c.SetDataBreakpointsRequest("n0.Nothing")
	daptest.Expect[*dap.SetDataBreakpointsResponse](b, c)
	timed(b, func(int) { gotoStep(b, c, 0) }, func(int) {
		c.ContinueRequest(1)
		daptest.Expect[*dap.ContinueResponse](b, c)
		daptest.Expect[*dap.StoppedEvent](b, c)
	})
}
