package engine

import "github.com/cmc-go/cmc"

// Options say how to search.
type Options struct {
	// Search is "bfs" (default, shortest counterexamples), "dfs", "random", "best" (best-first,
	// best.go), "deepen" (iterative deepening: shortest counterexamples with depth-first memory,
	// deepen.go) or "swarm" (randomised depth-first searches, each with a visited set of its own, swarm.go).
	Search    string
	MaxDepth  int   // 0: unbounded
	MaxStates int64 // 0: unbounded
	All       bool  // go on after a violation and report every distinct one (by signature)
	Exact     bool  // keep every state exactly instead of 64-bit hashes (small models, tests)

	Steps int    // random: the walk's length (default 10,000)
	Seed  uint64 // random: the generator's seed (0 means 1)
	Keep  bool   // random: keep the walk as a trace even when nothing is violated

	// Goal names a scenario (cmc.Model.Sometimes): the search stops when it reaches it, and a
	// best-first search expands the states of the best progress towards it first.
	Goal string

	// From starts the search from the state after the first FromSteps steps of a stored trace (all
	// of them when FromSteps is 0), instead of the initial state.
	From      *Trace
	FromSteps int
	// StrictPrefix makes a prefix step that reaches a different state (by hash) an error. Otherwise
	// only a prefix that no longer replays (a missing event, different Choose calls) is an error, and
	// the first step whose state differs is noted in the result: code changes after a fix do that.
	StrictPrefix bool

	// SelfCheck is how many transitions (the first ones) to self-check (see selfcheck.go): the next
	// event is run on the live objects and on restored copies, and the results compared; every
	// component is captured at once, which also checks cmc.Touches and sharing between components.
	// 0 means DefaultSelfCheck, a negative number none, SelfCheckAll every transition. The initial
	// state is checked too, on the objects the model's builder made.
	SelfCheck int64

	// Workers is how many goroutines expand a breadth-first level (parallel.go) or run a swarm's
	// members (swarm.go) at once, each with its own instance of the model made by Build; 0 means
	// runtime.GOMAXPROCS(0), 1 none. A depth-first search with 2 or more has one helper expand
	// the states waiting under the one it expands (forked.go). The result is the same for any
	// number. Without Build, or when the options or the model rule it out (see parallel.go), the
	// search runs on one goroutine.
	Workers int
	// Build makes another instance of the model being checked, as its builder made the first (the
	// same name and parameters: cmc.Build).
	Build func() (*cmc.Model, error)

	// Members is how many searches a swarm runs (swarm.go); 0 means DefaultMembers. Member i is a
	// function of Seed and i (and Members, which divides MaxStates and spreads the depth bounds).
	Members int
	// share, when set, spreads a swarm's members over processes (CheckSwarm, swarmshare.go).
	share SwarmShare

	// Progress, when set, is called every few thousand transitions (the caller decides how often
	// to show it: the engine does not read the clock).
	Progress func(Progress)
	// Begin, when set, is called before every run of a handler on the search's goroutine: the
	// worker publishes it so a transition that hangs or kills the process can be traced afterwards.
	Begin func(state int64, event, attempt int)
	// Concurrent, when set, is called with true before workers expand a level at once
	// (parallel.go) and with false after. Meanwhile Begin is not called: several runs are under
	// way, each recorded in its machine's transition.Slot, where a watchdog finds the one that
	// hangs; a crash meanwhile names no run, and is traced by searching again with one worker.
	Concurrent func(on bool)
	// Reproduce stops the search just before the handler run at a Position (as Begin saw it in an
	// earlier, identical search) and reports it as a violation of the given kind without running
	// it: this is how a transition that hung or crashed the worker gets its trace.
	Reproduce *Reproduction
}

// A Position names one handler run of a search: the trail index of the state, the event and the
// attempt (which Choose combination). Searches are deterministic, so it names the same run again.
type Position struct {
	State   int64 `json:"state"`
	Event   int   `json:"event"`
	Attempt int   `json:"attempt"`
}

// A Reproduction is a Position and what happened there.
type Reproduction struct {
	Position
	Kind, Message string
}

// Progress is a snapshot of a running search.
type Progress struct {
	States      int64 `json:"states"`
	Transitions int64 `json:"transitions"`
	Depth       int   `json:"depth"`
	Frontier    int   `json:"frontier"`
	// Score is the score of the state a best-first search is expanding (Result.Heuristic says
	// what it is).
	Score []int `json:"score,omitempty"`
	// Reached is how many of the model's scenarios the search has reached, of Scenarios.
	Reached   int `json:"reached,omitempty"`
	Scenarios int `json:"scenarios,omitempty"`
	// Partitions is how many states each partition of a partitioned search owns (partition.go):
	// how evenly the fingerprints spread the work.
	Partitions []int64 `json:"partitions,omitempty"`
	// Members is how many members a swarm has, MembersDone how many of them have finished
	// (swarm.go), wherever they run.
	Members     int `json:"members,omitempty"`
	MembersDone int `json:"members_done,omitempty"`
}

// A Result summarises a search.
type Result struct {
	States      int64    `json:"states"`      // distinct states stored
	Transitions int64    `json:"transitions"` // handler runs
	Depth       int      `json:"depth"`       // deepest level reached
	Complete    bool     `json:"complete"`    // the state space was exhausted
	Cut         int64    `json:"cut"`         // states a constraint kept from being expanded
	Violations  []*Trace `json:"violations"`
	Walk        *Trace   `json:"walk,omitempty"` // a kept random walk
	Exact       bool     `json:"exact"`
	// CollisionProbability bounds the chance that two states shared a hash, so one was missed.
	CollisionProbability float64 `json:"collision_probability"`
	VisitedBytes         int64   `json:"visited_bytes"`
	// StoredBytes is what the search keeps in memory for the whole run: the visited set, the
	// trail that rebuilds counterexamples (its first and newest chunks), and the interned
	// component encodings.
	StoredBytes int64 `json:"stored_bytes"`
	// SpilledBytes is what the search kept in temporary files, gone when it ends: the rest of the
	// trail, and the most of a breadth-first search's frontier at once.
	SpilledBytes int64 `json:"spilled_bytes"`
	// FrontierBytes is the most memory the states waiting to be expanded took at once, packed
	// (BFS: the level being expanded and the next).
	FrontierBytes int64  `json:"frontier_bytes"`
	Seed          uint64 `json:"seed,omitempty"`
	Cancelled     bool   `json:"cancelled,omitempty"`
	PrefixNote    string `json:"prefix_note,omitempty"`
	// Rules are the model's rules for types without tags (cmc.Model.Omit), as "omit T.f".
	Rules []string `json:"rules,omitempty"`
	// Rerun says why the search ran again on one goroutine, if it did (the coordinator does when
	// a parallel search crashed with no one transition to blame).
	Rerun string `json:"rerun,omitempty"`
	// SelfChecked is how many transitions the self-check ran on (Options.SelfCheck).
	SelfChecked int64 `json:"self_checked"`
	// Expanded is how many states had all their enabled events run (Branching).
	Expanded int64 `json:"expanded"`
	// Events are the model's events with how often each handler ran (stats.go).
	Events []EventRuns `json:"events,omitempty"`
	// Coverage is the line coverage of the user's code, when the worker was built to measure it
	// (filled in by the coordinator, not the engine: coverage.go).
	Coverage *Coverage `json:"coverage,omitempty"`
	runs     []int64   // by event index
	// Scenarios says which of the model's scenarios the search reached (cmc.Model.Sometimes).
	Scenarios []ScenarioResult `json:"scenarios,omitempty"`
	// Heuristic is what ordered a best-first search: score, abstract or values (guide.go).
	Heuristic string `json:"heuristic,omitempty"`
	// Environment is what the model's environment components said about the run, one line each
	// ("redis: connections 3, ..."): the worker asks every component whose root has a
	// RunSummary() string method (env.Peer's I/O cache) once the search is over.
	Environment []string `json:"environment,omitempty"`
	// Partitions are each partition's share of a partitioned search (partition.go).
	Partitions []PartitionFigures `json:"partitions,omitempty"`
}

// Traces are the traces a result holds, in the order they are stored: the violations, the kept
// walk, then the scenarios' (Scenarios, those with a trace).
func (r *Result) Traces() []*Trace {
	ts := r.Violations[:len(r.Violations):len(r.Violations)]
	if r.Walk != nil {
		ts = append(ts, r.Walk)
	}
	for _, sc := range r.Scenarios {
		if sc.Trace != nil {
			ts = append(ts, sc.Trace)
		}
	}
	return ts
}
