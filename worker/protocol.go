package worker

import (
	"encoding/json"

	"github.com/cmc-go/cmc/engine"
)

// A Request is one line the coordinator sends.
type Request struct {
	Op     string            `json:"op"` // models, check, or an op registered by another package
	Model  string            `json:"model,omitempty"`
	Params map[string]string `json:"params,omitempty"`
	Check  *CheckOptions     `json:"check,omitempty"`
	// Reproduce re-runs a check up to the transition that hung or crashed the previous worker and
	// returns its trace instead of running it.
	Reproduce *Crash `json:"reproduce,omitempty"`
	// Deadline is how long, in seconds, one call into user code may take in a registered op (a
	// replay); 0: 10 s. A check takes its own from Check.
	Deadline float64 `json:"deadline,omitempty"`
	// Args carries the arguments of registered ops.
	Args json.RawMessage `json:"args,omitempty"` // JSON, not base64: a trace can be 100 MB
}

// CheckOptions are engine.Options as they cross the pipe.
type CheckOptions struct {
	Search       string        `json:"search,omitempty"`
	MaxDepth     int           `json:"max_depth,omitempty"`
	MaxStates    int64         `json:"max_states,omitempty"`
	All          bool          `json:"all,omitempty"`
	Exact        bool          `json:"exact,omitempty"`
	Steps        int           `json:"steps,omitempty"`
	Seed         uint64        `json:"seed,omitempty"`
	Keep         bool          `json:"keep,omitempty"`
	From         *engine.Trace `json:"from,omitempty"`
	FromSteps    int           `json:"from_steps,omitempty"`
	StrictPrefix bool          `json:"strict_prefix,omitempty"`
	SelfCheck    int64         `json:"self_check,omitempty"` // see engine.Options.SelfCheck
	Workers      int           `json:"workers,omitempty"`    // see engine.Options.Workers
	Goal         string        `json:"goal,omitempty"`       // see engine.Options.Goal
	Members      int           `json:"members,omitempty"`    // see engine.Options.Members
	// Deadline is how long one transition may run, in seconds, before it is reported as a hang
	// (default 10).
	Deadline float64 `json:"deadline,omitempty"`
	// Memory is the worker's memory limit in bytes (0: DefaultMemory); a live heap above it is a
	// finding.
	Memory int64 `json:"memory,omitempty"`
	// CoverDir, when set, is where the worker (built with -cover) writes its coverage counters
	// during and at the end of the check (coverage.go).
	CoverDir string `json:"cover_dir,omitempty"`
}

// PartitionArgs are the arguments of the "partition" op (registered by package cluster, linked
// into a partitioned check's worker): run one partition of a partitioned breadth-first search
// (engine/partition.go) with the request's model and Check options, exchanging states over NATS.
// The secrets travel over the pipe, never in the worker's arguments or environment.
type PartitionArgs struct {
	NATS       NATS   `json:"nats"`
	Run        string `json:"run"` // the run's id: its NATS stream and subjects
	Partition  int    `json:"partition"`
	Partitions int    `json:"partitions"`
	// Life counts the times this partition was started in this run (0 the first): one started
	// again resumes from the run's stream.
	Life int `json:"life,omitempty"`
	// CheckpointDir, when set, is where the partition keeps its checkpoint, written at every
	// level; started again, it goes on from there (engine/checkpoint.go).
	CheckpointDir string `json:"checkpoint_dir,omitempty"`
	// CheckpointNATS keeps the checkpoint in a JetStream object store of the run instead (bucket
	// CMC_<run>_p<K>), so a partition started again on another machine goes on from it; partition
	// 0 removes the buckets when the run is over. CheckpointMax bounds it in bytes (0: the
	// default, cluster.DefaultCheckpointMax).
	CheckpointNATS bool  `json:"checkpoint_nats,omitempty"`
	CheckpointMax  int64 `json:"checkpoint_max,omitempty"`
	// KillAtLevel, for the test of resuming after kill -9 only: in its first life, the worker
	// kills itself with SIGKILL after sending its first batch of this level (0: never); in a
	// swarm over processes, as this member ends, before it publishes what the member found.
	KillAtLevel int `json:"kill_at_level,omitempty"`
}

// NATS says how to reach NATS (see cluster.Config, which has the same fields).
type NATS struct {
	URL      string `json:"url"`
	Token    string `json:"token,omitempty"`
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
	Creds    string `json:"creds,omitempty"`
}

// A Reply is one line the worker sends. A request gets any number of progress replies, then one
// with Done set.
type Reply struct {
	Progress *engine.Progress `json:"progress,omitempty"`
	Done     bool             `json:"done,omitempty"`
	Error    string           `json:"error,omitempty"`
	Models   []string         `json:"models,omitempty"`
	Result   *engine.Result   `json:"result,omitempty"`
	Crash    *Crash           `json:"crash,omitempty"` // the worker is about to exit: a transition hung
	Data     json.RawMessage  `json:"data,omitempty"`  // the result of a registered op, JSON
}

// A Crash says which transition hung or killed the worker.
type Crash struct {
	// Kind is hang or crash (a fatal error, os.Exit, runtime.Goexit, the memory limit): the two
	// kinds of violation that engine and replay know not to run again, since the step ends the
	// worker.
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// NoTrace: the worker was not running a transition of a check (it was building the model,
	// say), so Position means nothing and there is no trace to reproduce.
	NoTrace bool `json:"no_trace,omitempty"`
	// Concurrent: the workers of a parallel search were running several transitions, so no
	// Position names the one that crashed; the coordinator searches again with one worker.
	Concurrent bool `json:"concurrent,omitempty"`
	engine.Position
}

// SelfCheck turns what a user gives (-selfcheck, the launch attribute selfCheck: a number of
// transitions, 0 for none, -1 for every one) into engine.Options.SelfCheck (where 0 is the default
// and a negative number none).
func SelfCheck(n int64) int64 {
	switch n {
	case 0:
		return -1
	case -1:
		return engine.SelfCheckAll
	}
	return n
}
