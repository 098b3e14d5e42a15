package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"syscall"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

// swarmProcess runs process a.Partition of a.Partitions of a swarm over processes (the
// "partition" op with the search swarm: check -search swarm -partitions N): this process's
// members, and in process 0 the merge. Process 0 returns the swarm's result as JSON, the others
// the result of their own members.
func swarmProcess(req *worker.Request, a worker.PartitionArgs, progress func(engine.Progress)) ([]byte, error) {
	m, err := worker.Build(req.Model, req.Params)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	nc, err := Connect(Config(a.NATS), fmt.Sprintf("cmc %s swarm process %d", a.Run, a.Partition))
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	opts := req.Check.Options()
	members := opts.Members
	if members == 0 {
		members = engine.DefaultMembers
	}
	sw, err := NewSwarm(ctx, nc, a.Run, a.Partition, a.Partitions, members, progress)
	if err != nil {
		return nil, err
	}
	defer sw.Close()
	sw.Stalled = func(what string) {
		fmt.Fprintf(os.Stderr, "cmc swarm process %d of run %s: %s\n", a.Partition, a.Run, what)
	}
	if a.KillAtLevel > 0 && a.Life == 0 {
		// The test of kill -9 (worker.PartitionArgs.KillAtLevel): die as member KillAtLevel ends,
		// before anything of it is published.
		sw.beforeFinished = func(i int) {
			if i == a.KillAtLevel {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}
	opts.Build = func() (*cmc.Model, error) { return worker.Build(req.Model, req.Params) }
	res, err := engine.CheckSwarm(ctx, m, opts, sw)
	if err != nil {
		return nil, err
	}
	for _, t := range res.Violations {
		t.Params = req.Params
	}
	return json.Marshal(res)
}
