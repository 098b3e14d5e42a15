package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

// maxLives is how many times a partition's worker is started in one run: a worker killed from
// outside (kill -9, the out-of-memory killer) resumes from the run's stream; one that dies every
// time has a cause that will not go away.
const maxLives = 3

// CheckPartitioned runs a partitioned check (engine/partition.go) in n local workers, partition k
// in the k-th, which exchange states over the NATS that args name. bin is a cluster worker
// (BuildCluster). progress gets partition 0's progress (every partition knows the whole
// search's figures). It returns the search's result, which every partition returns alike.
func CheckPartitioned(ctx context.Context, bin string, req *worker.Request, args worker.PartitionArgs, n int, progress func(engine.Progress), out Output, restarted func(partition int, why string)) (*engine.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*engine.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	killP, killL := -1, 0
	if _, err := fmt.Sscanf(os.Getenv("CMC_TEST_KILL"), "%d:%d", &killP, &killL); err != nil {
		killP = -1
	}
	for k := range n {
		a := args
		a.Partition, a.Partitions = k, n
		if k == killP {
			a.KillAtLevel = killL // the test of resuming after kill -9: docs/cluster.md
		}
		p := progress
		if k != 0 {
			p = nil
		}
		wg.Go(func() {
			results[k], errs[k] = RunPartition(ctx, bin, req, a, p, out, restarted)
			if errs[k] != nil {
				cancel() // the others would wait for it at the next barrier
			}
		})
	}
	wg.Wait()
	// The first cause, not the cancellations it brought about.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results[0], nil
}

// RunPartition runs one partition in a worker, starting the worker again when it dies (up to
// maxLives times): the new one resumes from the run's stream. restarted, when set, hears of it.
func RunPartition(ctx context.Context, bin string, req *worker.Request, a worker.PartitionArgs, progress func(engine.Progress), out Output, restarted func(partition int, why string)) (*engine.Result, error) {
	for life := 0; ; life++ {
		a.Life = life
		r := *req
		r.Op = "partition"
		var err error
		if r.Args, err = json.Marshal(a); err != nil {
			return nil, err
		}
		w, err := start(bin, nil, out)
		if err != nil {
			return nil, err
		}
		reply, err := w.Call(ctx, &r, progress)
		w.Close()
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil && life+1 < maxLives:
			if restarted != nil {
				restarted(a.Partition, err.Error())
			}
			continue
		case err != nil:
			return nil, fmt.Errorf("partition %d died %d times, the last: %w; the run cannot finish (check without -partitions to trace a crash)", a.Partition, maxLives, err)
		case reply.Error != "":
			return nil, fmt.Errorf("partition %d: %s", a.Partition, reply.Error)
		}
		var res engine.Result
		if err := json.Unmarshal(reply.Data, &res); err != nil {
			return nil, fmt.Errorf("partition %d: its result does not decode: %w", a.Partition, err)
		}
		return &res, nil
	}
}
