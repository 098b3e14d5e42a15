package service

import (
	"context"
	"fmt"
	"io"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/tracefmt"
	"github.com/cmc-go/cmc/worker"
)

// NATS says how a partitioned check's partitions reach NATS.
type NATS = worker.NATS

// A Cluster says where the partitions of a partitioned check (Settings.Partitions) meet and
// which of them this process runs.
type Cluster struct {
	NATS NATS
	Run  string // the run's id: its NATS stream and subjects
	// Only, when set, runs only that partition here (a cluster's worker: the others run
	// elsewhere); otherwise every partition runs here, each in a worker process of its own.
	Only *int
	// CheckpointDir, when set, is where each partition keeps its checkpoint (a directory of the
	// run's that outlives a partition's worker).
	CheckpointDir string
	// CheckpointNATS keeps each partition's checkpoint in the run's object store on NATS instead,
	// for partitions started again on other machines; CheckpointMax bounds one (0: the default).
	CheckpointNATS bool
	CheckpointMax  int64
	// Restarted hears of a partition's worker that died and was started again.
	Restarted func(partition int, why string)
}

// CheckPartitioned runs c as a partitioned breadth-first search (engine/partition.go) in
// c.Settings.Partitions partitions, in worker processes that exchange states over NATS. The
// result is the same as Check's for a breadth-first search, and is stored alike (Save).
func (p *Program) CheckPartitioned(ctx context.Context, c *Check, cl Cluster, progress func(engine.Progress), out Output) (*engine.Result, error) {
	n := c.Settings.Partitions
	if n < 1 {
		return nil, fmt.Errorf("partitions %d: a partitioned check has at least one partition", n)
	}
	if err := p.BuildCluster(ctx); err != nil {
		return nil, err
	}
	req := &worker.Request{Model: c.Model, Params: c.Params, Check: c.Settings.options(c.From)}
	args := worker.PartitionArgs{NATS: cl.NATS, Run: cl.Run, Partitions: n, CheckpointDir: cl.CheckpointDir,
		CheckpointNATS: cl.CheckpointNATS, CheckpointMax: cl.CheckpointMax}
	if cl.Only != nil {
		args.Partition = *cl.Only
		return coord.RunPartition(ctx, p.clusterBin, req, args, progress, out, cl.Restarted)
	}
	return coord.CheckPartitioned(ctx, p.clusterBin, req, args, n, progress, out, cl.Restarted)
}

// BuildCluster builds the worker a partitioned check runs in, once: a front end may build it
// before the check starts, so that a build error is its launch's and the build's time is not
// the check's.
func (p *Program) BuildCluster(ctx context.Context) error {
	if p.clusterBin != "" {
		return nil
	}
	bin, err := coord.BuildCluster(ctx, p.Package)
	if err != nil {
		return err
	}
	p.clusterBin = bin
	return nil
}

// WritePartitions says how a partitioned check shared its work, in its summary (cmcdap check
// prints it, the DAP session shows it in the debug console): the states each partition owned
// and the bytes the partitions exchanged, per state.
func WritePartitions(w io.Writer, res *engine.Result) {
	if len(res.Partitions) == 0 {
		return
	}
	owned := make([]int64, len(res.Partitions))
	var bytes int64
	for i, p := range res.Partitions {
		owned[i] = p.States
		bytes += p.Bytes
	}
	perState := 0.0
	if res.States > 0 {
		perState = float64(bytes) / float64(res.States)
	}
	list, ratio := tracefmt.Shares(owned)
	fmt.Fprintf(w, "%d partitions owned %s states (max/mean %.2f); they exchanged %s (%.0f bytes a state)\n",
		len(res.Partitions), list, ratio, Bytes(bytes), perState)
}
