package service

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

// RunSettings are how a check searches, as the user gave them. Every front end fills the same
// record and every run stores it as is (store.Run.Settings), so runs checked from the CLI and from
// the editor read alike.
type RunSettings struct {
	Search    string `json:"search"` // bfs, dfs, random, best, deepen or swarm (Searches)
	MaxDepth  int    `json:"max_depth,omitempty"`
	MaxStates int64  `json:"max_states,omitempty"`
	All       bool   `json:"all,omitempty"`   // go on after a violation
	Exact     bool   `json:"exact,omitempty"` // keep states exactly, not as 64-bit hashes
	Steps     int    `json:"steps,omitempty"` // random: walk length
	Seed      uint64 `json:"seed,omitempty"`  // random: seed
	Keep      bool   `json:"keep,omitempty"`  // random: store the walk without a violation
	// Deadline is how long one transition may run, in seconds, before it is a hang (0: 10).
	Deadline float64 `json:"deadline,omitempty"`
	// SelfCheck is how many transitions to self-check: N, 0 for none, -1 for every one.
	SelfCheck int64 `json:"self_check"`
	Memory    int64 `json:"memory,omitempty"` // the worker's memory limit in bytes (0: the default)
	// Workers is how many instances of the model expand a breadth-first level at once (0: one per
	// core, 1: one); the result is the same for any number.
	Workers int `json:"workers,omitempty"`
	// Bookmark is the bookmarked state the check started from; FromSteps the steps of its trace
	// that lead there.
	Bookmark  string `json:"bookmark,omitempty"`
	FromSteps int    `json:"from_steps,omitempty"`
	// Coverage measures the line coverage of the user's code, with a worker built with
	// go build -cover (opt-in: it slows the check, see docs/search.md).
	Coverage bool `json:"coverage,omitempty"`
	// CoverPackages are more packages to measure (comma-separated, as go build -coverpkg takes
	// them), e.g. the protocol library a model checks.
	CoverPackages string `json:"cover_packages,omitempty"`
	// Goal is the scenario the search looks for (engine.Options.Goal).
	Goal string `json:"goal,omitempty"`
	// Partitions is how many processes a partitioned breadth-first search runs in, each owning
	// the states whose fingerprints fall in its partition (engine/partition.go), or a swarm's
	// members run in (member i in process i mod Partitions: engine/swarmshare.go); 0: one
	// process. The result is the same for any number.
	Partitions int `json:"partitions,omitempty"`
	// Members is how many searches a swarm runs (0: engine.DefaultMembers).
	Members int `json:"members,omitempty"`
}

// Searches are the search strategies, as the CLI and the launch configuration name them.
var Searches = []string{"bfs", "dfs", "random", "best", "deepen", "swarm"}

// DefaultSettings are the settings a front end starts from.
func DefaultSettings() RunSettings {
	return RunSettings{Search: "bfs", Steps: 10000, Seed: 1, Deadline: 10, SelfCheck: engine.DefaultSelfCheck}
}

// Validate refuses settings that mean nothing. The messages name the setting as the CLI does;
// the DAP front end checks its attributes as it parses them.
func (s *RunSettings) Validate() error {
	if !slices.Contains(Searches, s.Search) {
		return fmt.Errorf("search %q: want %s", s.Search, strings.Join(Searches, ", "))
	}
	return nil
}

// options are the settings as the worker takes them, starting from from's first s.FromSteps steps.
func (s *RunSettings) options(from *engine.Trace) *worker.CheckOptions {
	o := &worker.CheckOptions{Search: s.Search, MaxDepth: s.MaxDepth, MaxStates: s.MaxStates, All: s.All,
		Exact: s.Exact, Steps: s.Steps, Seed: s.Seed, Keep: s.Keep, Deadline: s.Deadline,
		SelfCheck: worker.SelfCheck(s.SelfCheck), Memory: s.Memory, Workers: s.Workers, Goal: s.Goal, Members: s.Members}
	if from != nil {
		o.From, o.FromSteps = from, s.FromSteps
	}
	return o
}

func (s *RunSettings) json() json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
