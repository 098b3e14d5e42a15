package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/cluster"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/natsrun"
	"github.com/cmc-go/cmc/internal/service"
)

// A partitioned check (docs/cluster.md): check -partitions N runs N local worker processes, each
// one partition, against a NATS server it starts on loopback (or -nats); worker runs one
// partition of a check whose partitions run on several machines.

func init() {
	commands["worker"] = command{run: workerCommand,
		usage: "run one partition of a partitioned check on a cluster: worker -nats URL -run ID -partition K -partitions N [-model NAME] [-set K=V]... PKG"}
}

// partitionFlags are the flags of a partitioned check that are not search settings.
type partitionFlags struct {
	nats        cluster.Config
	run         string
	checkpoints string // the directory of the partitions' checkpoints, or "nats"
	checkMax    int64  // -checkpoint-max: a checkpoint's bound in the object store
	only        *int   // worker: the one partition this process runs
}

// addNATSFlags adds the flags that say how to reach NATS; the environment (cluster.EnvURL, ...)
// fills what they leave empty, so a secret need not be on a command line.
func (p *partitionFlags) addNATSFlags(fs *flag.FlagSet) {
	fs.StringVar(&p.nats.URL, "nats", "", "NATS `URL` the partitions meet at (default: $"+cluster.EnvURL+"; check starts its own on loopback when neither is set)")
	fs.StringVar(&p.nats.Token, "nats-token", "", "NATS token (default: $"+cluster.EnvToken+")")
	fs.StringVar(&p.nats.User, "nats-user", "", "NATS user (default: $"+cluster.EnvUser+")")
	fs.StringVar(&p.nats.Password, "nats-password", "", "NATS password (default: $"+cluster.EnvPassword+")")
	fs.StringVar(&p.nats.Creds, "nats-creds", "", "NATS credentials `file` (default: $"+cluster.EnvCreds+")")
	fs.StringVar(&p.run, "run", "", "the run's `id`, the same for every partition (check: a new one)")
	fs.StringVar(&p.checkpoints, "checkpoint", "", "keep each partition's checkpoint in `DIR`, or in an object store of the run on NATS with \"nats\", so one started again goes on from its last level (check: a directory of the run's, removed after; worker: nats)")
	fs.Var(&memoryFlag{&p.checkMax}, "checkpoint-max", "with -checkpoint nats, the largest checkpoint a partition may store, `SIZE` such as 2GiB (its bucket's limit is twice that; default "+service.Bytes(cluster.DefaultCheckpointMax)+")")
}

// checkpointsInNATS is the value of -checkpoint that keeps the checkpoints in NATS (a directory
// of that name is ./nats).
const checkpointsInNATS = "nats"

// checkPartitioned runs c partitioned, starting NATS on loopback when none is given.
func checkPartitioned(ctx context.Context, prog *service.Program, c *service.Check, p *partitionFlags, progress func(engine.Progress), stderr io.Writer) (*engine.Result, error) {
	checkpoints, inNATS := p.checkpoints, p.checkpoints == checkpointsInNATS
	if p.only != nil && checkpoints == "" {
		// A cluster's worker: a directory of the pod's dies with it, NATS's store does not.
		inNATS = true
	}
	if inNATS {
		checkpoints = ""
	}
	cl := service.Cluster{NATS: service.NATS(p.nats.FromEnv()), Run: p.run, Only: p.only, CheckpointDir: checkpoints,
		CheckpointNATS: inNATS, CheckpointMax: p.checkMax, Restarted: func(k int, why string) {
			fmt.Fprintf(stderr, "cmcdap: partition %d's worker died (%s); started again, it resumes from its checkpoint and the run's stream\n", k, oneLine(why))
		}}
	if p.only == nil {
		// Every partition here: where they meet, the NATS given or one started for the run.
		r, err := natsrun.StartRun(cluster.Config(cl.NATS), p.run)
		if err != nil {
			return nil, err
		}
		if inNATS {
			r.Buckets = c.Settings.Partitions
		}
		defer r.End()
		cl.NATS, cl.Run = service.NATS(r.NATS), r.ID
		if cl.CheckpointDir == "" && !inNATS {
			cl.CheckpointDir = r.Checkpoints()
		}
	}
	if c.Settings.Search == "swarm" {
		cl.Restarted = swarmRestarted(stderr) // swarm.go
	}
	return prog.CheckPartitioned(ctx, c, cl, progress, service.Prefixed(stderr))
}

// partitionIndex reads -partition: a number, or env:VAR (a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX); unset, JOB_COMPLETION_INDEX if that is set.
func partitionIndex(flagValue string) (int, error) {
	v, from := flagValue, "-partition"
	if name, ok := strings.CutPrefix(v, "env:"); ok {
		if v, from = os.Getenv(name), "$"+name; v == "" {
			return 0, fmt.Errorf("-partition env:%s, but %s is not set", name, from)
		}
	} else if v == "" {
		v, from = os.Getenv("JOB_COMPLETION_INDEX"), "$JOB_COMPLETION_INDEX"
	}
	if v == "" {
		return 0, fmt.Errorf("which partition? give -partition K (from 0), -partition env:VAR, or set JOB_COMPLETION_INDEX")
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 0 {
		return 0, fmt.Errorf("%s is %q: want a partition number from 0", from, v)
	}
	return k, nil
}

// workerCommand runs one partition of a check whose partitions run elsewhere too. Partition 0
// prints and stores the result, as check does; the others print one line.
func workerCommand(args []string, stdout, stderr io.Writer) int {
	f := checkFlags{params: settings{}, run: service.DefaultSettings()}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.model, "model", "", "model `name` (default: the package's only model)")
	fs.Var(f.params, "set", "model parameter `KEY=VALUE` (repeatable)")
	fs.IntVar(&f.run.MaxDepth, "depth", 0, "depth bound (0: none)")
	fs.Int64Var(&f.run.MaxStates, "states", 0, "stop after this many states (0: no bound)")
	fs.Float64Var(&f.run.Deadline, "deadline", f.run.Deadline, "seconds one transition may run before it is reported as a hang")
	fs.IntVar(&f.run.Partitions, "partitions", 0, "how many partitions the check has, `N` (the same for every partition)")
	part := fs.String("partition", "", "this partition, `K` from 0 to N-1, or env:VAR (default: $JOB_COMPLETION_INDEX)")
	fs.StringVar(&f.db, "db", "", "partition 0: trace database (default .cmc/traces.db)")
	fs.BoolVar(&f.jsonOut, "json", false, "partition 0: print one JSON object")
	fs.BoolVar(&f.quiet, "q", false, "no progress on stderr")
	f.part.addNATSFlags(fs)
	addWorkerSwarmFlags(fs, &f.run) // swarm.go
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(stderr, "worker", err)
	}
	if len(pos) != 1 {
		return fail(stderr, "worker", errors.New("give one package, e.g. cmcdap worker -nats nats://nats:4222 -run r1 -partitions 4 ./examples/aodv"))
	}
	k, err := partitionIndex(*part)
	switch {
	case err != nil:
	case f.run.Partitions < 1:
		err = errors.New("-partitions N: how many partitions the check has")
	case k >= f.run.Partitions:
		err = fmt.Errorf("partition %d of %d: the partition must be from 0 to %d", k, f.run.Partitions, f.run.Partitions-1)
	case f.part.run == "":
		err = errors.New("-run ID: the run's id, the same for every partition of the check")
	case f.part.nats.FromEnv().URL == "":
		err = errors.New("-nats URL: where the partitions meet (or set " + cluster.EnvURL + ")")
	default:
		err = f.partitionable()
	}
	if err != nil {
		return fail(stderr, "worker", err)
	}
	f.part.only = &k
	return checkUntilInterrupt("worker", &f, pos[0], stdout, stderr)
}

// partitionable refuses what a partitioned check does not do, before anything is built.
func (f *checkFlags) partitionable() error {
	r := &f.run
	if r.Partitions == 0 {
		return nil
	}
	if r.Search == "swarm" {
		return f.swarmable() // swarm.go
	}
	var not []string
	for _, o := range []struct {
		set  bool
		flag string
	}{{r.Search != "bfs", "-search " + r.Search}, {r.All, "-all"}, {r.Exact, "-exact"}, {r.Goal != "", "-goal"},
		{f.bookmark != "", "-bookmark"}, {r.Coverage, "-cover"}, {r.Workers > 1, "-workers"}} {
		if o.set {
			not = append(not, o.flag)
		}
	}
	if len(not) > 0 {
		return fmt.Errorf("-partitions runs a breadth-first search without %s: drop them, or drop -partitions", strings.Join(not, ", "))
	}
	return nil
}
