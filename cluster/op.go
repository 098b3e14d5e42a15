package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

func init() { worker.RegisterProgress("partition", partition) }

// partition runs one partition of a partitioned check in this worker (worker.PartitionArgs) and
// returns the search's result as JSON. Every partition returns the whole search's result.
func partition(req *worker.Request, progress func(engine.Progress)) ([]byte, error) {
	var a worker.PartitionArgs
	if err := json.Unmarshal(req.Args, &a); err != nil {
		return nil, fmt.Errorf("partition: bad arguments: %w", err)
	}
	if req.Check != nil && req.Check.Search == "swarm" {
		return swarmProcess(req, a, progress) // a swarm's members over processes: swarmop.go
	}
	if req.Check != nil && req.Check.Workers > 1 {
		return nil, errors.New("a partition runs on one goroutine: give -partitions or -workers, not both")
	}
	m, err := worker.Build(req.Model, req.Params)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	nc, err := Connect(Config(a.NATS), fmt.Sprintf("cmc %s partition %d", a.Run, a.Partition))
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	x, err := NewExchange(ctx, nc, a.Run, a.Partition, a.Partitions)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	x.Stalled = func(what string) {
		fmt.Fprintf(os.Stderr, "cmc partition %d of run %s: %s\n", a.Partition, a.Run, what)
	}
	var ex engine.Exchange = x
	if a.KillAtLevel > 0 && a.Life == 0 {
		ex = &killer{Exchange: x, level: a.KillAtLevel}
	}
	opts := req.Check.Options()
	opts.Progress = progress
	part := engine.Partition{Index: a.Partition, Count: a.Partitions, Exchange: ex}
	switch {
	case a.CheckpointNATS:
		c, err := openObjectCheckpoints(ctx, nc, a.Run, a.Partition, a.CheckpointMax)
		if err != nil {
			return nil, err
		}
		part.Checkpoints = c
	case a.CheckpointDir != "":
		if err := os.MkdirAll(a.CheckpointDir, 0o700); err != nil {
			return nil, fmt.Errorf("make the checkpoint directory: %w", err)
		}
		part.Checkpoints = fileCheckpoints{checkpointFile(a.CheckpointDir, a.Run, a.Partition)}
	}
	part.Resumed = func(level int) {
		fmt.Fprintf(os.Stderr, "cmc partition %d of run %s: resumed from its checkpoint at level %d\n", a.Partition, a.Run, level)
	}
	res, err := engine.CheckPartition(ctx, m, opts, part)
	if err != nil {
		return nil, err // the checkpoints stay: the run can be started again with its id
	}
	if a.CheckpointNATS && a.Partition == 0 {
		// Every partition's last report is in, and a partition saves its checkpoint before it
		// reports a level: no partition writes its bucket again.
		if err := DeleteCheckpoints(ctx, nc, a.Run, a.Partitions); err != nil {
			fmt.Fprintf(os.Stderr, "cmc partition 0 of run %s: %v\n", a.Run, err)
		}
	}
	for _, t := range res.Violations {
		t.Params = req.Params
	}
	return json.Marshal(res)
}

// A killer is the test of resuming after kill -9 (worker.PartitionArgs.KillAtLevel): it kills
// its own process in the middle of a level, once a batch of it is on its way.
type killer struct {
	*Exchange
	level int
}

func (k *killer) Send(ctx context.Context, level, to int, batch []byte) error {
	err := k.Exchange.Send(ctx, level, to, batch)
	if level == k.level {
		<-k.Exchange.acks[len(k.Exchange.acks)-1].Ok() // stored: the restarted partition must not count it twice
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return err
}
