package dap

import (
	"slices"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// state is what a session shows: the trace, where in it the user is, and what the editor asked
// for. Only the session goroutine touches it.
type state struct {
	client     dap.InitializeRequestArguments
	launch     *launchConfig
	db         *store.Store
	tr         *trace           // nil until a trace is loaded
	pos        engine.Cursor    // where the user is in tr
	stopped    bool             // a stopped event was sent for pos
	configured bool             // configurationDone arrived
	pending    func()           // the first stop, waiting for configurationDone
	check      *checkRun        // a check in progress
	build      *service.Program // the user's package built into a worker, when launched with a program
	views      Views            // Config.Views, or the one Config.OpenViews made

	handles handles    // variable references, valid until the next stop
	cache   stateCache // states of recently shown steps
	bps     breakpoints
	progs   programs
	gotos   []engine.Cursor  // the last gotoTargets, by target id - 1
	replay  service.Replayer // a worker re-running the trace, for heap graphs
	files   sourceFiles      // the editor's path of each recorded file
	sources goSources        // the Go files hovers read receivers from

	inside      *inside // a step running in the user's code under Delve (inside.go)
	toldNoDelve bool    // the user was told why Step Into cannot enter the code
	lines       lineRuns
}

func (st *state) init() {
	st.cache = stateCache{}
	st.progs = programs{}
	st.bps.init()
}

// A trace is a loaded trace with indexes the requests need.
type trace struct {
	id        int64
	t         *engine.Trace
	procs     []string // the threads: components that act, in state order
	envs      []string // the other components: the network, timers
	thread    map[string]int
	procSteps map[string][]int // the steps of each process, in order
	sites     siteIndex
}

func newTrace(id int64, t *engine.Trace) *trace {
	tr := &trace{id: id, t: t, thread: map[string]int{}, procSteps: map[string][]int{}}
	acts := map[string]bool{}
	for i, s := range t.Steps {
		acts[s.Proc] = true
		tr.procSteps[s.Proc] = append(tr.procSteps[s.Proc], i+1)
	}
	seen := map[string]bool{}
	if t.Procs != nil { // recorded, in the model's order
		tr.procs = slices.Clone(t.Procs)
		for _, p := range t.Procs {
			seen[p] = true
		}
	}
	for _, l := range t.Init {
		r := canon.Path(l.Path).Root()
		if seen[r] {
			continue
		}
		seen[r] = true
		// A trace stored before Procs: the processes are the roots not in Env (those that act,
		// when it has no Env either).
		if t.Procs == nil && !slices.Contains(t.Env, r) && (t.Env != nil || acts[r]) {
			tr.procs = append(tr.procs, r)
		} else {
			tr.envs = append(tr.envs, r)
		}
	}
	for _, s := range t.Steps { // a process with no state of its own, in an old trace
		if !seen[s.Proc] {
			seen[s.Proc] = true
			tr.procs = append(tr.procs, s.Proc)
		}
	}
	for i, p := range tr.procs {
		tr.thread[p] = i + 1
	}
	tr.sites = indexSites(t)
	return tr
}

func (tr *trace) len() int { return len(tr.t.Steps) }

// components are the trace's roots (processes and environment), without values: what names in
// an expression may stand for.
func (tr *trace) components() components {
	c := components{}
	for _, r := range slices.Concat(tr.procs, tr.envs) {
		c[r] = nil
	}
	return c
}

// step returns step n (1-based).
func (tr *trace) step(n int) *engine.Step { return &tr.t.Steps[n-1] }

// threadOf is the thread of the process that acts at a engine.Cursor (the first at the start).
func (tr *trace) threadOf(p engine.Cursor) int {
	if p.Step == 0 || len(tr.procs) == 0 {
		return 1
	}
	if id, ok := tr.thread[tr.step(p.Step).Proc]; ok {
		return id
	}
	return 1
}

// A shownState is the state after one step: its leaves, its tree, and (when an expression
// needs it) its expression environment.
type shownState struct {
	leaves  []canon.Leaf
	tree    *node
	env     *env
	changes []canon.Change // what the step changed, as shown (shownChanges)
}

// stateCache keeps the states of the last few steps shown: the Variables pane, hovers and
// watches all ask for the same step again and again.
type stateCache map[int]*shownState

const stateCacheSize = 16

// stateAt returns the state after step n of the loaded trace.
func (s *Session) stateAt(n int) (*shownState, error) {
	if st, ok := s.cache[n]; ok {
		return st, nil
	}
	leaves, err := s.leavesAt(n)
	if err != nil {
		return nil, err
	}
	if len(s.cache) >= stateCacheSize {
		for k := range s.cache {
			if k != s.pos.Shown() {
				delete(s.cache, k)
				break
			}
		}
	}
	st := &shownState{leaves: leaves, tree: buildTree(leaves)}
	s.cache[n] = st
	return st, nil
}

// shownChanges is what step n changed as the Changes scope shows it: an element added or removed
// whole is one change (canon.Wholes).
func (s *Session) shownChanges(n int) ([]canon.Change, error) {
	st, err := s.stateAt(n)
	if err != nil {
		return nil, err
	}
	if st.changes == nil {
		st.changes = canon.Wholes(s.tr.step(n).Changes, st.leaves)
	}
	return st.changes, nil
}

func (s *Session) leavesAt(n int) ([]canon.Leaf, error) {
	if n == 0 {
		return s.tr.t.Init, nil
	}
	return s.db.State(s.tr.id, n)
}

// envAt returns the expression environment of the state after step n.
func (s *Session) envAt(n int) (*env, error) {
	st, err := s.stateAt(n)
	if err != nil {
		return nil, err
	}
	if st.env == nil {
		st.env = newEnv(st.tree)
	}
	return st.env, nil
}

// closeTrace forgets the loaded trace.
func (s *Session) closeTrace() {
	s.tr = nil
	s.cache = stateCache{}
	s.handles.reset()
}
