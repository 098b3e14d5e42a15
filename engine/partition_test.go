package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/examples/twophase"
)

// memHub is an in-memory exchange for every partition of one search, each on its own goroutine:
// what NATS JetStream carries between processes in a cluster. Like JetStream with message ids,
// it keeps the first batch of a given (level, sender, destination, number): a partition started
// again sends its batches again.
type memHub struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n       int
	batches map[[4]int][]byte // (level, from, to, number)
	reports map[int][][]byte  // round -> by partition
}

func newMemHub(n int) *memHub {
	h := &memHub{n: n, batches: map[[4]int][]byte{}, reports: map[int][][]byte{}}
	h.cond = sync.NewCond(&h.mu)
	return h
}

type memExchange struct {
	h      *memHub
	me     int
	seq    map[[2]int]int
	rounds []int           // the rounds this partition reported
	handed map[[4]int]bool // the batches Receive handed over
}

func newMemExchange(h *memHub, me int) *memExchange {
	return &memExchange{h: h, me: me, seq: map[[2]int]int{}, handed: map[[4]int]bool{}}
}

func (x *memExchange) Send(_ context.Context, level, to int, b []byte) error {
	k := [2]int{level, to}
	seq := x.seq[k]
	x.seq[k]++
	x.h.mu.Lock()
	defer x.h.mu.Unlock()
	if _, ok := x.h.batches[[4]int{level, x.me, to, seq}]; !ok {
		x.h.batches[[4]int{level, x.me, to, seq}] = b
	}
	return nil
}

func (x *memExchange) Barrier(_ context.Context, round int, report []byte) ([][]byte, error) {
	x.rounds = append(x.rounds, round)
	h := x.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reports[round] == nil {
		h.reports[round] = make([][]byte, h.n)
	}
	h.reports[round][x.me] = report
	h.cond.Broadcast()
	for {
		all := true
		for _, r := range h.reports[round] {
			all = all && r != nil
		}
		if all {
			return h.reports[round], nil
		}
		h.cond.Wait()
	}
}

// Receive hands over the batches of level sent so far in the map's order, which changes from run
// to run, as the order of arrival over NATS does.
func (x *memExchange) Receive(_ context.Context, level int, counts []int, take func([]byte) error) error {
	x.h.mu.Lock()
	var ready [][]byte
	for k, b := range x.h.batches {
		if k[0] == level && k[2] == x.me && !x.handed[k] {
			x.handed[k] = true
			ready = append(ready, b)
		}
	}
	x.h.mu.Unlock()
	for _, b := range ready {
		if err := take(b); err != nil {
			return err
		}
	}
	for q, c := range counts {
		for s := range c {
			if !x.handed[[4]int{level, q, x.me, s}] {
				return fmt.Errorf("level %d: partition %d's batch %d of %d is missing", level, q, s, c)
			}
		}
	}
	return nil
}

// partitioned runs a search in n partitions, each with its own instance of the model and its own
// pool, as n processes would, and returns partition 0's result after checking that every
// partition returned the same one.
func partitioned(t testing.TB, build func() *cmc.Model, opts Options, n int) *Result {
	t.Helper()
	hub := newMemHub(n)
	results := make([]*Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for p := range n {
		m := build()
		wg.Go(func() {
			results[p], errs[p] = CheckPartition(context.Background(), m, opts, Partition{Index: p, Count: n, Exchange: newMemExchange(hub, p), InProcess: true})
		})
	}
	wg.Wait()
	for p := range n {
		if errs[p] != nil {
			t.Fatalf("partition %d of %d: %v", p, n, errs[p])
		}
		if d := resultDiff(results[0], results[p]); d != "" {
			t.Fatalf("partition %d of %d returned another result than partition 0: %s", p, n, d)
		}
	}
	var sum int64
	for _, f := range results[0].Partitions {
		sum += f.States
	}
	if sum != results[0].States {
		t.Errorf("%d partitions own %d states, the result says %d", n, sum, results[0].States)
	}
	return results[0]
}

// TestPartitionedSameAsSequential: for 1, 2 and 4 partitions a search finds the sequential
// breadth-first search's states, transitions (by event), depth, expanded and cut states, and the
// same violation with the same trace, step by step: the sequential search stops in the middle of
// the level where it meets the violation, and the partitioned one counts what it had counted.
func TestPartitionedSameAsSequential(t *testing.T) {
	grid := func(kind string) func() *cmc.Model { return func() *cmc.Model { return gridModel(kind) } }
	tp := func(rm int) func() *cmc.Model { return func() *cmc.Model { return twophase.New(rm) } }
	cases := []struct {
		name  string
		build func() *cmc.Model
		opts  Options
	}{
		{"TwoPhase RM=3", tp(3), Options{}},
		{"TwoPhase RM=5", tp(5), Options{}},
		{"counter, Choose and an invariant", func() *cmc.Model { return counterModel(true) }, Options{}},
		{"grid, invariant", grid("invariant"), Options{}},
		{"grid, assertion in a handler", grid("assert"), Options{}},
		{"grid, step invariant", grid("step"), Options{}},
		{"grid, deadlock", grid("deadlock"), Options{}},
		{"grid, constraint", grid("constraint"), Options{}},
		{"grid, bound", grid("bound"), Options{}},
		{"grid, depth bound", grid(""), Options{MaxDepth: 7}},
		{"AODVSpecBug nodes=3", aodvModel("AODVSpecBug"), Options{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seqOpts := c.opts
			seqOpts.Workers = 1
			want, err := Check(context.Background(), c.build(), seqOpts)
			if err != nil {
				t.Fatal(err)
			}
			var first *Result
			for _, n := range []int{1, 2, 4} {
				got := partitioned(t, c.build, c.opts, n)
				{
					if got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth ||
						got.Complete != want.Complete || got.Cut != want.Cut || got.Expanded != want.Expanded {
						t.Errorf("%d partitions: states %d transitions %d depth %d complete %v cut %d expanded %d; sequential %d %d %d %v %d %d",
							n, got.States, got.Transitions, got.Depth, got.Complete, got.Cut, got.Expanded,
							want.States, want.Transitions, want.Depth, want.Complete, want.Cut, want.Expanded)
					}
					for i := range want.Events {
						if got.Events[i] != want.Events[i] {
							t.Errorf("%d partitions: %v, sequential %v", n, got.Events[i], want.Events[i])
						}
					}
				}
				if len(want.Violations) > 0 {
					if len(got.Violations) != 1 {
						t.Fatalf("%d partitions: %d violations, want 1", n, len(got.Violations))
					}
					g, w := got.Violations[0], want.Violations[0]
					if gs, ws := stepsOf(g), stepsOf(w); gs != ws || g.Violation.Kind != w.Violation.Kind || g.Violation.Message != w.Violation.Message {
						t.Errorf("%d partitions: %s %q after\n%s\nsequential: %s %q after\n%s", n, g.Violation.Kind, g.Violation.Message, gs, w.Violation.Kind, w.Violation.Message, ws)
					}
				}
				// The same result, violation and trace included, for any number of partitions.
				if first == nil {
					first = got
				} else if d := resultDiff(first, withoutShares(got)); d != "" {
					t.Errorf("%d partitions differ from 1: %s", n, d)
				}
				first = withoutShares(first)
			}
		})
	}
}

// stepsOf is a trace's steps, one a line: the process, the event, the Choose values and the
// state's hash.
func stepsOf(t *Trace) string {
	var b strings.Builder
	for _, s := range t.Steps {
		fmt.Fprintf(&b, "%s.%s", s.Proc, s.Event)
		for _, c := range s.Choices {
			fmt.Fprintf(&b, " %d/%d", c.Value, c.N)
		}
		fmt.Fprintf(&b, " %v\n", s.Hash)
	}
	return b.String()
}

// withoutShares is r without the per-partition figures, which differ with the number of
// partitions by design.
func withoutShares(r *Result) *Result {
	c := *r
	c.Partitions, c.VisitedBytes, c.StoredBytes, c.SpilledBytes = nil, 0, 0, 0
	return &c
}

// TestPartitionedMaxStates: a state bound stops every partition at the same level, with the
// same figures for any number of partitions.
func TestPartitionedMaxStates(t *testing.T) {
	var first *Result
	for _, n := range []int{1, 2, 4} {
		got := withoutShares(partitioned(t, func() *cmc.Model { return gridModel("") }, Options{MaxStates: 500}, n))
		if got.Complete || got.States < 500 {
			t.Errorf("%d partitions: %d states, complete %v; want at least 500 and not complete", n, got.States, got.Complete)
		}
		if first == nil {
			first = got
		} else if d := resultDiff(first, got); d != "" {
			t.Errorf("%d partitions differ from 1: %s", n, d)
		}
	}
}

// TestOwnerSpreads: fingerprints spread over the partitions, and an owner is always in range.
func TestOwnerSpreads(t *testing.T) {
	for _, n := range []int{1, 3, 4, 64} {
		counts := make([]int, n)
		for i := range uint64(10000) {
			h := i * 0x9E3779B97F4A7C15
			o := Owner(h, n)
			if o < 0 || o >= n {
				t.Fatalf("Owner(%x, %d) = %d", h, n, o)
			}
			counts[o]++
		}
		for p, c := range counts {
			if c < 10000/n/2 {
				t.Errorf("%d partitions: partition %d owns %d of 10000", n, p, c)
			}
		}
	}
}

// FuzzDecodeBatch: the decoder of what partitions send each other never panics, and what it
// decodes encodes back to the same bytes.
func FuzzDecodeBatch(f *testing.F) {
	f.Add(appendWireState(nil, 7, place{3<<32 | 1, 4}, verdictCut, 1, []int{0, 2}, [][]byte{[]byte("a"), nil}), 2, 3)
	f.Add([]byte{wireVersion}, 1, 1)
	f.Add([]byte{}, 0, 0)
	f.Fuzz(func(t *testing.T, b []byte, k, events int) {
		got, err := decodeBatch(nil, b, k, events)
		if err != nil {
			return
		}
		var again []byte
		for _, ws := range got {
			again = appendWireState(again, ws.parent, ws.at, ws.verdict, ws.event, ws.values, ws.comps)
		}
		if len(got) == 0 {
			again = []byte{wireVersion}
		}
		if string(again) != string(b) {
			// Uvarints have more than one encoding; only a decoder that loses data is wrong.
			back, err := decodeBatch(nil, again, k, events)
			if err != nil || fmt.Sprint(back) != fmt.Sprint(got) {
				t.Fatalf("decoded %v, re-encoded and decoded %v (%v)", got, back, err)
			}
		}
	})
}

// TestPartitionedSpecBugLoop: two partitions find the thesis's AODV specification bug, a routing
// loop, the single-process breadth-first search's (16 steps: examples/aodv's
// TestSpecBugShortestLoop), with its figures at the violation.
func TestPartitionedSpecBugLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute: run without -short")
	}
	r := partitioned(t, func() *cmc.Model {
		m, err := cmc.Build("AODVSpecBug", nil)
		if err != nil {
			panic(err)
		}
		return m
	}, Options{}, 2)
	if len(r.Violations) != 1 {
		t.Fatalf("%d violations, want the routing loop", len(r.Violations))
	}
	v := r.Violations[0]
	if len(v.Steps) != 16 || !strings.Contains(v.Violation.Message, "routing loop") {
		t.Errorf("a %d-step trace to %s %q; want a 16-step routing loop", len(v.Steps), v.Violation.Kind, v.Violation.Message)
	}
	// The single-process check's (cmcdap check -workers 1 -model AODVSpecBug ./examples/aodv).
	if r.States != 2168369 || r.Transitions != 5176311 || !strings.HasSuffix(v.Violation.Message, "A -> B -> A") {
		t.Errorf("%d states, %d transitions, %q after\n%s\nwant one process's 2168369 states, 5176311 transitions and loop A -> B -> A",
			r.States, r.Transitions, v.Violation.Message, stepsOf(v))
	}
}

// memCheckpoints keep a checkpoint in memory.
type memCheckpoints struct {
	mu    sync.Mutex
	data  []byte
	saves int
}

func (c *memCheckpoints) Save(write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.data, c.saves = b.Bytes(), c.saves+1
	return nil
}

func (c *memCheckpoints) Load() (io.ReadCloser, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data == nil {
		return nil, nil
	}
	return io.NopCloser(bytes.NewReader(c.data)), nil
}

// dying is an exchange whose partition dies in the middle of a level: after its first batch of
// that level, sends fail.
type dying struct {
	*memExchange
	level int
}

var errDied = errors.New("the partition died")

func (d dying) Send(ctx context.Context, level, to int, b []byte) error {
	if level == d.level && d.sentAt(level) {
		return errDied
	}
	return d.memExchange.Send(ctx, level, to, b)
}

func (d dying) sentAt(level int) bool {
	for k, n := range d.memExchange.seq {
		if k[0] == level && n > 0 {
			return true
		}
	}
	return false
}

// TestPartitionedResumesFromCheckpoint: a partition that dies in the middle of a level and is
// started again goes on from its checkpoint of that level (it reports no round before it), and
// the search's result is the one without the death.
func TestPartitionedResumesFromCheckpoint(t *testing.T) {
	build := func() *cmc.Model { return twophase.New(5) }
	want := withoutShares(partitioned(t, build, Options{}, 2))
	const die = 6
	hub := newMemHub(2)
	cps := []*memCheckpoints{{}, {}}
	results := make([]*Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() {
		results[0], errs[0] = CheckPartition(context.Background(), build(), Options{}, Partition{Index: 0, Count: 2, Exchange: newMemExchange(hub, 0), InProcess: true, Checkpoints: cps[0]})
	})
	_, err := CheckPartition(context.Background(), build(), Options{}, Partition{Index: 1, Count: 2, Exchange: dying{newMemExchange(hub, 1), die}, InProcess: true, Checkpoints: cps[1]})
	if !errors.Is(err, errDied) {
		t.Fatalf("the first life of partition 1 ended with %v", err)
	}
	again := newMemExchange(hub, 1)
	resumed := -1
	wg.Go(func() {
		results[1], errs[1] = CheckPartition(context.Background(), build(), Options{}, Partition{Index: 1, Count: 2, Exchange: again, InProcess: true, Checkpoints: cps[1],
			Resumed: func(level int) { resumed = level }})
	})
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Fatalf("partition %d: %v", p, err)
		}
	}
	if resumed != die || again.rounds[0] != die {
		t.Errorf("partition 1 resumed at level %d and first reported round %d; want %d", resumed, again.rounds[0], die)
	}
	for p, r := range results {
		if d := resultDiff(want, withoutShares(r)); d != "" {
			t.Errorf("partition %d after a death: %s", p, d)
		}
	}
}

// BenchmarkPartitioned: TwoPhase RM=7 through the in-process partitioned search, with 1 and 2
// partitions, and (partitions=0) the one-process search with one worker (docs/performance.md,
// "Several processes"). It reports the most heap in use and the process's peak RSS (which counts
// the tables kept off the heap), sampled while it runs: run one at a time for the RSS.
func BenchmarkPartitioned(b *testing.B) {
	for _, n := range []int{0, 1, 2} {
		b.Run(fmt.Sprintf("TwoPhaseRM7/partitions=%d", n), func(b *testing.B) {
			peak, stop := heapPeak()
			for b.Loop() {
				var r *Result
				if n == 0 {
					var err error
					if r, err = Check(context.Background(), twophase.New(7), Options{Workers: 1}); err != nil {
						b.Fatal(err)
					}
				} else {
					r = partitioned(b, func() *cmc.Model { return twophase.New(7) }, Options{}, n)
				}
				if r.States != 296448 {
					b.Fatalf("%d states, want 296448", r.States)
				}
			}
			stop()
			b.ReportMetric(float64(*peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(peakRSS())/(1<<10), "peak-rss-MiB")
		})
	}
}

// heapPeak samples the heap in use every 20 ms until stop is called.
func heapPeak() (*uint64, func()) {
	var peak uint64
	done, finished := make(chan struct{}), make(chan struct{})
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return &peak, func() { close(done); <-finished }
}

// peakRSS is the process's peak resident set in KiB (VmHWM), or 0 where /proc has none.
func peakRSS() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// TestArrivalsKeepLeastLink: a state that arrives again keeps the least (parent, event, Choose
// values) of its arrivals, whatever their order, and a longer or shorter list of values than the
// one it replaces; the index finds every arrival after the table grows.
func TestArrivalsKeepLeastLink(t *testing.T) {
	var a arrivals
	defer a.free()
	a.add(1, 42, 9, place{5, 3}, verdictOK, false, 2, []int32{1}, State{7})
	for _, l := range []struct {
		parent uint64
		at     place
		event  int
		values []int32
	}{
		{9, place{5, 4}, 2, []int32{1, 0}}, // later: a later run of the same state
		{8, place{5, 1}, 1, []int32{3, 3}}, // earlier: an earlier run, more values
		{10, place{6, 0}, 0, nil},          // later: a later state
		{7, place{5, 0}, 1, []int32{3}},    // earlier: the first run, fewer values
	} {
		a.relink(0, l.parent, l.at, l.event, l.values)
	}
	if a.parent[0] != 7 || a.at[0] != (place{5, 0}) || a.event[0] != 1 || fmt.Sprint(a.values(0)) != "[3]" {
		t.Errorf("link (%d, %v, %d, %v), want (7, {5 0}, 1, [3])", a.parent[0], a.at[0], a.event[0], a.values(0))
	}
	fp := func(i int) uint64 { return uint64(i)*0x9E3779B97F4A7C15 + 100 }
	for i := range 10000 {
		a.add(1, fp(i), 0, place{}, verdictOK, true, 0, nil, State{1})
	}
	if i, ok := a.index.get(42); !ok || i != 0 || a.len() != 10001 {
		t.Errorf("after growing, fingerprint 42 is at %d (%v) of %d", i, ok, a.len())
	}
	if i, ok := a.index.get(fp(5000)); !ok || i != 5001 {
		t.Errorf("arrival 5001 is at %d (%v)", i, ok)
	}
}

// FuzzDecodeKeys: the decoder of a level's keys never panics, and what it decodes encodes back to
// keys that decode the same.
func FuzzDecodeKeys(f *testing.F) {
	f.Add(encodeKeys([]uint64{0, 1, 1 << 32, 1<<32 | 7, 5 << 32}))
	f.Add([]byte{keysVersion})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeKeys(nil, b)
		if err != nil {
			return
		}
		if !slices.IsSorted(got) {
			t.Fatalf("decoded %v, not ascending", got)
		}
		back, err := decodeKeys(nil, encodeKeys(got))
		if err != nil || !slices.Equal(back, got) {
			t.Fatalf("decoded %v, re-encoded and decoded %v (%v)", got, back, err)
		}
	})
}
