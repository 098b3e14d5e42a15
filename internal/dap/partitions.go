package dap

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/cmc-go/cmc/cluster"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/natsrun"
	"github.com/cmc-go/cmc/internal/service"
)

// A launch with "partitions" checks as cmcdap check -partitions does (docs/cluster.md): the
// package built into a cluster worker, N of them started here, meeting at the launch's NATS or
// at one started on loopback for the run; the result is stored and shown as any check's.

// partitionable refuses what a partitioned check does not do, and NATS credentials in the
// launch configuration, as the launch is parsed.
func (c *launchConfig) partitionable() error {
	if c.Partitions == 0 {
		if c.NATS != "" && c.Trace == 0 {
			return fmt.Errorf(`launch: "nats" is where the partitions of a partitioned check meet: add "partitions", or drop "nats"`)
		}
		return nil
	}
	if u, err := url.Parse(c.NATS); c.NATS != "" && (err != nil || u.User != nil) {
		return fmt.Errorf(`launch: "nats" must be a URL without credentials, e.g. "nats://nats.example:4222": give them in cmcdap's environment (%s, or %s and %s, or %s)`,
			cluster.EnvToken, cluster.EnvUser, cluster.EnvPassword, cluster.EnvCreds)
	}
	var not []string
	for _, o := range []struct {
		set  bool
		attr string
	}{{c.Search != "bfs", fmt.Sprintf(`"search": %q`, c.Search)}, {c.Goal != "", `"goal"`}, {c.Bookmark != "", `"bookmark"`}, {c.Coverage, `"coverage"`}} {
		if o.set {
			not = append(not, o.attr)
		}
	}
	if len(not) > 0 {
		return fmt.Errorf(`launch: "partitions" runs a breadth-first search without %s: drop them, or drop "partitions"`, strings.Join(not, ", "))
	}
	return nil
}

// preparePartitions builds the cluster worker and starts the run the partitions meet in, so a
// build error and a NATS that cannot be reached are errors of the launch.
func preparePartitions(ctx context.Context, c *launchConfig, p *prepared) error {
	if err := p.build.BuildCluster(ctx); err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	r, err := natsrun.StartRun(cluster.Config{URL: c.NATS}.FromEnv(), "")
	if err != nil {
		return fmt.Errorf(`launch: "nats": %w`, err)
	}
	p.meet = r
	return nil
}

// checkPartitioned runs the check in its run's partitions and ends the run.
func (s *Session) checkPartitioned(ctx context.Context, run *checkRun, progress func(engine.Progress)) (*engine.Result, error) {
	defer run.meet.End()
	cl := service.Cluster{NATS: service.NATS(run.meet.NATS), Run: run.meet.ID, CheckpointDir: run.meet.Checkpoints(),
		Restarted: func(k int, why string) {
			s.output("stderr", fmt.Sprintf("partition %d's worker died (%s); started again, it resumes from its checkpoint and the run's stream\n", k, strings.Join(strings.Fields(why), " ")))
		}}
	return run.build.CheckPartitioned(ctx, run.check, cl, progress, s.modelOutput)
}
