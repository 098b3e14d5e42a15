package engine

import "github.com/cmc-go/cmc"

// Options say how to search.
type Options struct {
	Search    string // "bfs" (default, shortest counterexamples), "dfs" or "random"
	MaxDepth  int    // 0: unbounded
	MaxStates int64  // 0: unbounded
	All       bool   // go on after a violation and report every distinct one (by signature)
	Exact     bool   // keep every state exactly instead of 64-bit hashes (small models, tests)

	Steps int    // random: the walk's length (default 10,000)
	Seed  uint64 // random: the generator's seed (0 means 1)
	Keep  bool   // random: keep the walk as a trace even when nothing is violated

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

	// Workers is how many goroutines expand a breadth-first level at once (parallel.go), each with
	// its own instance of the model made by Build; 0 means runtime.GOMAXPROCS(0), 1 none. The
	// result is the same for any number. Without Build, or when the options or the model rule it
	// out (see parallel.go), the search runs on one goroutine.
	Workers int
	// Build makes another instance of the model being checked, as its builder made the first (the
	// same name and parameters: cmc.Build).
	Build func() (*cmc.Model, error)

	// Progress, when set, is called every few thousand transitions (the caller decides how often
	// to show it: the engine does not read the clock).
	Progress func(Progress)
	// Begin, when set, is called before every run of a handler: the worker publishes it so a
	// transition that hangs or kills the process can be traced afterwards.
	Begin func(state int64, event, attempt int)
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
	// SelfChecked is how many transitions the self-check ran on (Options.SelfCheck).
	SelfChecked int64 `json:"self_checked"`
	// Environment is what the model's environment components said about the run, one line each
	// ("redis: connections 3, ..."): the worker asks every component whose root has a
	// RunSummary() string method (env.Peer's I/O cache) once the search is over.
	Environment []string `json:"environment,omitempty"`
}
