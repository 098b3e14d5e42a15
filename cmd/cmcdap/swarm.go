package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
)

// A swarm over processes (docs/cluster.md, "Swarm on several machines"): check -search swarm
// -partitions N runs the swarm's members in N worker processes, member i in process i mod N,
// through the partitioned check's plumbing (partitions.go: NATS, the run, the workers and their
// restarts); worker -search swarm runs one process of a cluster's swarm.

// addMembersFlag adds -members.
func addMembersFlag(fs *flag.FlagSet, r *service.RunSettings) {
	fs.IntVar(&r.Members, "members", 0, fmt.Sprintf("swarm: how many randomised searches, `M` (default %d); member i is a function of -seed and i, wherever it runs", engine.DefaultMembers))
}

// addWorkerSwarmFlags adds to cmcdap worker the flags a process of a swarm needs.
func addWorkerSwarmFlags(fs *flag.FlagSet, r *service.RunSettings) {
	fs.StringVar(&r.Search, "search", r.Search, "bfs (a partition of a partitioned search) or swarm (a process of a swarm's members: docs/cluster.md)")
	fs.Uint64Var(&r.Seed, "seed", r.Seed, "swarm: seed")
	fs.BoolVar(&r.All, "all", false, "swarm: go on after a violation and report every distinct one")
	fs.StringVar(&r.Goal, "goal", "", "swarm: stop at the first state that reaches the model's scenario `NAME`")
	fs.IntVar(&r.Workers, "workers", 0, "swarm: run this process's members on `N` goroutines (0: one per core)")
	addMembersFlag(fs, r)
}

// validMembers refuses -members without a swarm, or below one.
func (f *checkFlags) validMembers() error {
	if err := atLeast("members", f.run.Members, 0, "0 means the default"); err != nil {
		return err
	}
	if f.run.Members > 0 && f.run.Search != "swarm" {
		return errors.New("-members is the number of a swarm's searches: add -search swarm, or drop -members")
	}
	return nil
}

// swarmable refuses what a swarm over processes does not do, before anything is built.
func (f *checkFlags) swarmable() error {
	r := &f.run
	if err := f.validMembers(); err != nil {
		return err
	}
	members := r.Members
	if members == 0 {
		members = engine.DefaultMembers
	}
	if r.Partitions > members {
		return fmt.Errorf("-partitions %d with %d members: process %d would have none (member i runs in process i mod %d); give -members %d or more, or fewer partitions",
			r.Partitions, members, members, r.Partitions, r.Partitions)
	}
	if r.Coverage {
		return errors.New("-search swarm -partitions runs without -cover (the processes' coverage is not merged): drop -cover, or drop -partitions")
	}
	return nil
}

// swarmRestarted says that a swarm process's worker died and was started again.
func swarmRestarted(stderr io.Writer) func(int, string) {
	return func(k int, why string) {
		fmt.Fprintf(stderr, "cmcdap: swarm process %d's worker died (%s); started again, it runs its members again\n", k, oneLine(why))
	}
}

// writeSwarmProcess is what a cluster's swarm process other than 0 prints when its members are
// done: process 0 prints and stores the swarm's result.
func writeSwarmProcess(w io.Writer, k, n int, res *engine.Result) {
	fmt.Fprintf(w, "swarm process %d of %d done: its members found %d states, %d transitions, %d violations\n",
		k, n, res.States, res.Transitions, len(res.Violations))
}
