package cluster

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/twophase"
)

var errDied = errors.New("died")

// dying ends its partition's life in the middle of level die, once its first batch of the level
// is stored (as the worker's killer does with SIGKILL).
type dying struct {
	*Exchange
	die int
}

func (d dying) Send(ctx context.Context, level, to int, batch []byte) error {
	if err := d.Exchange.Send(ctx, level, to, batch); err != nil || level != d.die {
		return err
	}
	<-d.acks[len(d.acks)-1].Ok()
	return errDied
}

// TestResumeOverJetStream: partition 1 of 2 dies in the middle of a level and starts again with
// a new connection, as a new pod would: from its checkpoint in the object store (it says from
// which level), or with no checkpoint at all (from level 0, reading the run's stream from the
// start). Either way the search's figures are the single-process search's.
func TestResumeOverJetStream(t *testing.T) {
	b := startBroker(t)
	build := func() *engine.Result {
		r, err := engine.Check(context.Background(), twophase.New(5), engine.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	want := build()
	const die = 6
	for _, from := range []string{"object store", "level 0"} {
		t.Run(from, func(t *testing.T) {
			ctx := context.Background()
			run := strings.ReplaceAll(from, " ", "")
			checkpoints := func(k int) engine.Checkpoints {
				if from == "level 0" {
					return nil
				}
				c, err := openObjectCheckpoints(ctx, connect(t, b), run, k, 0)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			exchange := func(k int) *Exchange {
				x, err := NewExchange(ctx, connect(t, b), run, k, 2)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(x.Close)
				return x
			}
			results := make([]*engine.Result, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			wg.Go(func() {
				results[0], errs[0] = engine.CheckPartition(ctx, twophase.New(5), engine.Options{}, engine.Partition{Index: 0, Count: 2, Exchange: exchange(0), InProcess: true, Checkpoints: checkpoints(0)})
			})
			first := exchange(1)
			_, err := engine.CheckPartition(ctx, twophase.New(5), engine.Options{}, engine.Partition{Index: 1, Count: 2, Exchange: dying{first, die}, InProcess: true, Checkpoints: checkpoints(1)})
			if !errors.Is(err, errDied) {
				t.Fatalf("partition 1's first life ended with %v", err)
			}
			first.Close()
			resumed := -1
			results[1], errs[1] = engine.CheckPartition(ctx, twophase.New(5), engine.Options{}, engine.Partition{Index: 1, Count: 2, Exchange: exchange(1), InProcess: true, Checkpoints: checkpoints(1),
				Resumed: func(level int) { resumed = level }})
			wg.Wait()
			for k, err := range errs {
				if err != nil {
					t.Fatalf("partition %d: %v", k, err)
				}
			}
			if wantResumed := map[string]int{"object store": die, "level 0": -1}[from]; resumed != wantResumed {
				t.Errorf("partition 1 resumed from level %d, want %d", resumed, wantResumed)
			}
			for k, got := range results {
				if got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth || got.Complete != want.Complete || got.Cut != want.Cut {
					t.Errorf("partition %d: %d states, %d transitions, depth %d, complete %v; one process: %d, %d, %d, %v",
						k, got.States, got.Transitions, got.Depth, got.Complete, want.States, want.Transitions, want.Depth, want.Complete)
				}
			}
		})
	}
}

// TestCheckpointOfAnotherFormat: an object that is whole (its digest matches) but is not a
// checkpoint is a one-line error from the engine, never a search from wrong figures.
func TestCheckpointOfAnotherFormat(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	c, err := openObjectCheckpoints(ctx, connect(t, b), "other", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Save(func(w io.Writer) error {
		_, err := io.WriteString(w, "cmc-partition-checkpoint-0 and more")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	x, err := NewExchange(ctx, connect(t, b), "other", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	_, err = engine.CheckPartition(ctx, twophase.New(3), engine.Options{}, engine.Partition{Index: 0, Count: 1, Exchange: x, InProcess: true, Checkpoints: c})
	if err == nil || !strings.Contains(err.Error(), "checkpoint") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a checkpoint of another format: %v", err)
	}
}

// TestFailedRunStartsAgain: a run whose partitions all stopped (partition 1 died in the middle of
// a level, and partition 0 was stopped waiting for it) keeps its checkpoints and stream, and both
// partitions started again with the run's id go on from their checkpoints to the single-process
// search's figures.
func TestFailedRunStartsAgain(t *testing.T) {
	b := startBroker(t)
	want, err := engine.Check(context.Background(), twophase.New(5), engine.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	const run, die = "failed", 6
	life := func(ctx context.Context, k int, dies bool, resumed *int) (*engine.Result, error) {
		nc := connect(t, b)
		x, err := NewExchange(ctx, nc, run, k, 2)
		if err != nil {
			return nil, err
		}
		defer x.Close()
		c, err := openObjectCheckpoints(ctx, nc, run, k, 0)
		if err != nil {
			return nil, err
		}
		var ex engine.Exchange = x
		if dies {
			ex = dying{x, die}
		}
		return engine.CheckPartition(ctx, twophase.New(5), engine.Options{}, engine.Partition{Index: k, Count: 2, Exchange: ex, InProcess: true, Checkpoints: c,
			Resumed: func(level int) { *resumed = level }})
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var err0 error
	resumed := []int{-1, -1}
	wg.Go(func() { _, err0 = life(ctx, 0, false, &resumed[0]) })
	if _, err := life(context.Background(), 1, true, &resumed[1]); !errors.Is(err, errDied) {
		t.Fatalf("partition 1's first life ended with %v", err)
	}
	stop() // the run has failed: partition 0 gives up waiting
	wg.Wait()
	if !errors.Is(err0, context.Canceled) {
		t.Fatalf("partition 0's first life ended with %v", err0)
	}

	results := make([]*engine.Result, 2)
	errs := make([]error, 2)
	for k := range 2 {
		wg.Go(func() { results[k], errs[k] = life(context.Background(), k, false, &resumed[k]) })
	}
	wg.Wait()
	for k := range 2 {
		if errs[k] != nil {
			t.Fatalf("partition %d started again: %v", k, errs[k])
		}
		if resumed[k] != die {
			t.Errorf("partition %d resumed from level %d, want %d", k, resumed[k], die)
		}
		if got := results[k]; got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth || !got.Complete {
			t.Errorf("partition %d: %d states, %d transitions, depth %d, complete %v; one process: %d, %d, %d",
				k, got.States, got.Transitions, got.Depth, got.Complete, want.States, want.Transitions, want.Depth)
		}
	}
}
