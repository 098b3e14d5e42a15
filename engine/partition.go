package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/cmc-go/cmc"
)

// Partitioned breadth-first search (Stern and Dill's parallel Murphi): n processes, each one
// partition, check one model together. Partition p owns the states whose fingerprint h (the
// 64-bit hash the visited set keeps) has Owner(h, n) == p: it keeps their visited set, their
// parent links and the part of each level made of them. The search goes level by level:
//
//  1. Admit (arrivals.go): the previous level's successors this partition owns (its own and
//     those other partitions sent it, merged as they arrived) are held once per fingerprint, with
//     the arrival the sequential search meets first as the parent link; admit them in the
//     sequential search's order, each with its key (arrivals.go: place). A new state joins the
//     level unless its verdict says it violates or is cut. The order of admission is the sort's,
//     never the order of arrival, so every figure and the violation chosen are the same every
//     run and for any n. Then the partition writes its checkpoint (checkpoint.go).
//  2. Expand: first send the other partitions the level's keys; then every state of the level, in
//     order, as the sequential search expands one (restore, enabling
//     conditions, handlers with every Choose combination, capture, hash, step invariants, then
//     invariants, constraints and bounds on what the handler left: the verdict), and every
//     successor goes to its owner with the parent's fingerprint, its place, the step and the verdict: kept
//     in the process when it is this partition's, else in batches (partitionwire.go). A
//     successor generated before in the level is dropped at once (arrivals.go says why its
//     first occurrence has the least link), and batches that arrived are merged as it goes.
//  3. Barrier: the partition reports the level (partReport: how many batches it sent each
//     partition, what it admitted and expanded, its first violation) and waits for every
//     partition's report of the level. The next level's admission receives exactly the batches
//     the reports say were sent to it.
//
// Termination: a level ends when every partition has sent its successors and reported its
// per-destination batch counts; the next admission ends when every partition has received all
// the batches addressed to it. Every partition sees every report, so each takes the same
// decision after the barrier: stop when some partition found a violation (the chosen one is the
// first the sequential search meets, and the figures what it counted then: partitionstop.go),
// when the states
// admitted reach MaxStates, at MaxDepth, or when no partition had a state to expand (then no
// batch was sent: nothing is in flight, and the search is complete). Nothing else can be in
// flight, since every batch of a level is counted in a report and received before the next
// admission ends.
//
// A counterexample is rebuilt across partitions from parent links: in rounds after the last
// level (each a barrier), the owner of the state asked for answers with its parent's fingerprint
// and the step, until the initial state; every partition then knows the path, and the trace is
// recorded by replaying it, as the sequential search records one, so it is a normal Trace.
//
// Not done partitioned: self-check (not run), scenarios, exact mode, All, From, Goal and the other
// strategies (CheckPartition says so rather than searching differently).

// An Exchange carries a partitioned search's messages between partitions. The engine defines it
// and knows nothing of its transport (NATS JetStream in a cluster, channels in tests). Rounds are
// numbered from 0 and never reused within a run.
type Exchange interface {
	// Send hands a batch of successors found at level to partition to.
	Send(ctx context.Context, level, to int, batch []byte) error
	// Barrier publishes this partition's report of a round and returns every partition's report
	// of that round, indexed by partition, once all have reported.
	Barrier(ctx context.Context, round int, report []byte) ([][]byte, error)
	// Receive hands take the batches addressed to this partition at level, each once over all of
	// the level's calls, in any order. With counts nil it hands those that have arrived and
	// returns at once (a partition merges them while it expands the level); with counts it waits
	// until it has handed counts[q] batches from each partition q.
	Receive(ctx context.Context, level int, counts []int, take func(batch []byte) error) error
}

// A Partition says which part of a partitioned search a process does.
type Partition struct {
	Index, Count int
	Exchange     Exchange
	// InProcess says other partitions of the search run in this process (tests do that): the
	// partition's machine then does not hold transition.Lock, which allows one machine per
	// process, and the model's instances must not share package-level state, as for
	// Options.Workers.
	InProcess bool
	// Checkpoints, when set, keep the partition's checkpoint, written at every level
	// (checkpoint.go): started again, the partition goes on from the last one.
	Checkpoints Checkpoints
	// Resumed, when set, hears that the partition goes on from a checkpoint, at that level.
	Resumed func(level int)
}

// PartitionFigures are one partition's share of a partitioned search.
type PartitionFigures struct {
	States      int64 `json:"states"`      // admitted: the states this partition owns
	Transitions int64 `json:"transitions"` // handler runs in its expansions
	Bytes       int64 `json:"bytes"`       // of the batches it sent other partitions
}

// Owner is the partition of n that owns states with fingerprint h. It uses the top 32 bits,
// which the visited set's table (indexed by the low bits) does not, so each partition's table
// still spreads its states evenly.
func Owner(h uint64, n int) int { return int((h >> 32) * uint64(n) >> 32) }

// Batch limits: a batch is sent when it holds batchStates successors or batchBytes bytes. While
// a level is expanded, the batches that have arrived are merged every drainEvery states.
const (
	batchStates = 256
	batchBytes  = 64 << 10
	drainEvery  = 64
	// keysPerBatch bounds a keys batch (at most 10 bytes a key).
	keysPerBatch = 8192
)

type partSearch struct {
	ctx   context.Context
	mc    *Machine
	opts  Options
	part  Partition
	init  State
	k     int
	v     *visited
	links chunked[partLink]
	vals  chunked[int32]
	// levels[d] is the index in links of the first state admitted at depth d.
	levels []int

	// the round being built
	rep  partReport
	out  [][]byte // per destination: the batch being filled
	outN []int
	// res, figures and runs are the search's figures so far, summed from every round's reports.
	res     *Result
	figures []PartitionFigures
	runs    []int64
	// local holds the states new at the next level that this partition owns, each once: those
	// it found (they never leave the process, and keep their component ids) and those other
	// partitions sent it (arrivals.go).
	local arrivals
	// sent remembers successors sent to other partitions at earlier levels: their owner has
	// them, so they need not be sent again; sentNow those sent at this level (arrivals.go).
	sent    *sentCache
	sentNow fpIndex
	in      []wireState // scratch for decoding batches
	// keys are the keys of the level being expanded, in its order (arrivals.go: place), nextKeys
	// those of the level being admitted, and levelKeys those other partitions expand in the
	// level (every partition's keys rank the next level's parents).
	keys, nextKeys, levelKeys []uint64
	// marks are the level's expansion figures every markEvery states (partitionstop.go).
	marks  []mark
	vals32 []int32

	enabled, prefix []int
	values          []int
	next            State
	comps           [][]byte
	compHashes      []uint64
}

// A partLink is one admitted state's parent link.
type partLink struct {
	fp, parent uint64
	event      int32
	off, n     uint32 // vals[off:off+n] are the step's Choose values
	root       bool
}

// CheckPartition runs partition part.Index of a partitioned breadth-first search of m. Every
// partition returns the whole search's result (the figures summed over partitions, the
// violation and its trace), plus each partition's share in Partitions.
func CheckPartition(ctx context.Context, m *cmc.Model, opts Options, part Partition) (*Result, error) {
	if err := partitionable(opts, part); err != nil {
		return nil, err
	}
	var own *pool
	if part.InProcess {
		own = newPool()
	}
	mc, init, err := newMachineOn(m, true, own)
	if err != nil {
		return nil, err
	}
	defer mc.Close()
	if err := mc.checkBounds(); err != nil {
		return nil, err
	}
	if len(mc.Def.Scenarios) > 0 {
		return nil, fmt.Errorf("model %s has scenarios (Sometimes), which a partitioned search does not follow yet: check it without partitions", mc.Def.Name)
	}
	n := part.Count
	ps := &partSearch{ctx: ctx, mc: mc, opts: opts, part: part, init: init, k: len(init),
		v: newVisited(false), out: make([][]byte, n), outN: make([]int, n), sent: new(sentCache)}
	ps.rep.Batches = make([]int, n)
	defer func() { ps.v.free(); ps.links.free(); ps.vals.free(); ps.local.free(); ps.sentNow.free() }()
	return ps.run()
}

// partitionable says what a partitioned search cannot do with these options.
func partitionable(opts Options, part Partition) error {
	switch {
	case part.Count < 1 || part.Index < 0 || part.Index >= part.Count:
		return fmt.Errorf("partition %d of %d: the index must be from 0 to the count less one", part.Index, part.Count)
	case part.Exchange == nil:
		return errors.New("a partitioned search needs an exchange")
	case opts.Search != "" && opts.Search != "bfs":
		return fmt.Errorf("a partitioned search is breadth-first: search %q is not partitioned", opts.Search)
	case opts.All, opts.Exact, opts.From != nil, opts.Goal != "", opts.Reproduce != nil:
		return errors.New("a partitioned search does not take -all, -exact, a starting trace, a goal or a reproduction: run them without partitions")
	}
	return nil
}

func (ps *partSearch) run() (*Result, error) {
	n, me := ps.part.Count, ps.part.Index
	mc := ps.mc
	ps.res = &Result{}
	ps.figures = make([]PartitionFigures, n)
	ps.runs = make([]int64, len(mc.Def.Events))
	cur, next := newLevel(ps.k), newLevel(ps.k)
	defer func() { cur.free(); next.free() }()
	start, err := ps.resume(next) // may put a checkpoint's figures in ps
	if err != nil {
		return nil, err
	}
	res, figures, runs := ps.res, ps.figures, ps.runs
	// Level 0 is the initial state, at its owner: it arrives there as any successor would.
	if h0 := mc.Hash(ps.init); start < 0 && Owner(h0, n) == me {
		verdict, v := ps.judge()
		if v != nil {
			ps.found(&candidate{Length: 0, State: h0, Run: runInitial, Violation: v})
		}
		ps.local.add(ps.k, h0, 0, place{}, verdict, true, 0, nil, ps.init)
	}
	counts := make([]int, n)
	for level := max(start, 0); ; level++ {
		// Admit what the previous level sent (a checkpoint has done that for its level).
		if level != start {
			if err := ps.admit(level, counts, next); err != nil {
				return nil, err
			}
			ps.rep.Frontier = int64(next.len())
			ps.rep.Checkpoint = ps.part.Checkpoints != nil
			if err := ps.checkpoint(level, next); err != nil {
				return nil, err
			}
		}
		cur, next = next, cur
		next.reset()
		ps.keys, ps.nextKeys = ps.nextKeys, ps.keys[:0]
		ps.sentNow.reset()
		ps.marks = ps.marks[:0]
		if ps.opts.MaxDepth == 0 || level < ps.opts.MaxDepth {
			if err := ps.expandLevel(level, cur); err != nil {
				return nil, err
			}
		}
		reports, err := ps.barrier(level)
		if err != nil {
			return nil, err
		}
		ps.rep = partReport{Batches: make([]int, n)}
		// Every partition takes the same decision from the same reports.
		clear(counts)
		var frontier int64
		var best *candidate
		checkpointed := true
		for q, r := range reports {
			checkpointed = checkpointed && r.Checkpoint
			counts[q] = r.Batches[me]
			res.States += r.Admitted
			res.Transitions += r.Transitions
			res.Expanded += r.Expanded
			res.Cut += r.Cut
			frontier += r.Frontier
			if r.Admitted > 0 {
				res.Depth = level
			}
			for i, k := range r.Runs {
				runs[i] += k
			}
			figures[q].States += r.Admitted
			figures[q].Transitions += r.Transitions
			figures[q].Bytes += r.Bytes
			if r.Violation != nil && (best == nil || candidateLess(r.Violation, best)) {
				best = r.Violation
			}
		}
		if f, ok := ps.part.Exchange.(Forgetter); ok && checkpointed {
			if err := f.Forget(ps.ctx, level); err != nil {
				return nil, fmt.Errorf("drop the batches of the levels before %d: %w", level, err)
			}
		}
		if ps.opts.Progress != nil {
			ps.opts.Progress(Progress{States: res.States, Transitions: res.Transitions, Depth: level, Frontier: int(frontier), Partitions: statesOf(figures)})
		}
		if best != nil {
			// The sequential search stopped at the violation: count what it counted (partitionstop.go).
			if err := ps.countToViolation(level, best, reports, counts, cur); err != nil {
				return nil, err
			}
			t, err := ps.rebuild(level+2, best)
			if err != nil {
				return nil, err
			}
			res.Violations = append(res.Violations, t)
			break
		}
		if frontier == 0 {
			res.Complete = true
			break
		}
		if ps.opts.MaxDepth > 0 && level >= ps.opts.MaxDepth {
			break
		}
		if ps.opts.MaxStates > 0 && res.States >= ps.opts.MaxStates {
			break
		}
	}
	res.Events = make([]EventRuns, len(mc.Def.Events))
	for i, ev := range mc.Def.Events {
		res.Events[i] = EventRuns{Event: ev.Label, Site: fmt.Sprintf("%s:%d", ev.File, ev.Line), Runs: runs[i]}
	}
	res.CollisionProbability = collisionBound(res.States)
	res.VisitedBytes = ps.v.bytes()
	res.StoredBytes = res.VisitedBytes + int64(ps.links.capacity())*int64(unsafe.Sizeof(partLink{})) + int64(ps.vals.capacity())*4 + int64(mc.pool.size())
	res.SpilledBytes = ps.links.spilled() + ps.vals.spilled()
	res.Partitions = figures
	for _, r := range mc.Def.Rules {
		res.Rules = append(res.Rules, r.String())
	}
	res.Rules = append(res.Rules, mc.boundRules()...)
	if err := errors.Join(ps.links.err, ps.vals.err); err != nil {
		return nil, err
	}
	return res, nil
}

func statesOf(f []PartitionFigures) []int64 {
	out := make([]int64, len(f))
	for i := range f {
		out[i] = f[i].States
	}
	return out
}

// blobs returns the canonical encodings of st's components.
func (ps *partSearch) blobs(st State) [][]byte {
	ps.comps = ps.comps[:0]
	for _, id := range st {
		ps.comps = append(ps.comps, ps.mc.pool.blob(id))
	}
	return ps.comps
}

// found keeps a violation if it comes before the round's others.
func (ps *partSearch) found(c *candidate) {
	if ps.rep.Violation == nil || candidateLess(c, ps.rep.Violation) {
		ps.rep.Violation = c
	}
}

// candidateLess orders violations as the sequential search meets them: by the key of the state
// expanded and the place among its runs (all of a round's are met while expanding one level), then
// by what, none of which depends on the number of partitions.
func candidateLess(a, b *candidate) bool {
	step := func(s *wireStep) (int, []int) {
		if s == nil {
			return -1, nil
		}
		return s.Event, s.Values
	}
	ae, av := step(a.Step)
	be, bv := step(b.Step)
	return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Run, b.Run), cmp.Compare(a.Length, b.Length), cmp.Compare(a.State, b.State), cmp.Compare(ae, be),
		slices.Compare(av, bv), cmp.Compare(a.Violation.Signature, b.Violation.Signature)) < 0
}

// expandLevel expands the states of cur, sending every successor to its owner. First it sends
// every other partition the keys of cur's states, which rank them among the level's.
func (ps *partSearch) expandLevel(level int, cur *level) error {
	if ps.part.Count > 1 {
		for i := 0; i < len(ps.keys); i += keysPerBatch {
			b := encodeKeys(ps.keys[i:min(i+keysPerBatch, len(ps.keys))])
			for to := range ps.part.Count {
				if to == ps.part.Index {
					continue
				}
				ps.rep.Batches[to]++
				ps.rep.Bytes += int64(len(b))
				if err := ps.part.Exchange.Send(ps.ctx, level, to, b); err != nil {
					return fmt.Errorf("send level %d's keys to partition %d: %w", level, to, err)
				}
			}
		}
	}
	for i := range cur.len() {
		_, _, st, err := cur.at(i)
		if err != nil {
			return err
		}
		if i%markEvery == 0 {
			ps.mark()
		}
		if err := ps.expand(level, st, ps.keys[i]); err != nil {
			return err
		}
		if i%drainEvery == drainEvery-1 {
			if err := ps.drain(level); err != nil {
				return err
			}
		}
	}
	ps.mark()
	for to := range ps.out {
		if err := ps.flush(level, to); err != nil {
			return err
		}
	}
	return nil
}

// expand runs every enabled event of st (at depth level, with key key) with every Choose
// combination.
func (ps *partSearch) expand(level int, st State, key uint64) error {
	mc := ps.mc
	fp := mc.Hash(st)
	enabled, fail, err := mc.enabledIn(ps.enabled[:0], st)
	if err != nil {
		return err
	}
	ps.enabled = enabled
	if fail != nil {
		ps.found(&candidate{Length: level, State: fp, Key: key, Run: runEnabling, Violation: NewViolation(fail.Kind, "", fail.Message, fail.Site)})
		return nil
	}
	run := uint32(0)
	for _, ei := range enabled {
		ev := mc.Def.Events[ei]
		prefix := ps.prefix[:0]
		for {
			if err := mc.Load(st); err != nil {
				return err
			}
			before := mc.CaptureStep()
			out := mc.Run(ev, prefix, false, nil)
			ps.rep.Transitions++
			if ps.rep.Runs == nil {
				ps.rep.Runs = make([]int64, len(mc.Def.Events))
			}
			ps.rep.Runs[ei]++
			if err := ps.successor(level, fp, st, place{key, run}, ei, ev, out, before); err != nil {
				return err
			}
			run++
			var more bool
			prefix, more = nextPrefix(prefix, out.Points)
			if !more {
				break
			}
		}
		ps.prefix = prefix
	}
	ps.rep.Expanded++
	if v := mc.DeadlockVerdict(len(enabled)); v != nil {
		ps.found(&candidate{Length: level, State: fp, Key: key, Run: runDeadlock, Violation: v})
	}
	return nil
}

// successor judges the state one handler run left and sends it to its owner. The invariants,
// constraints and bounds are judged here, on the objects the handler left, as the sequential
// search judges a new state: a verdict is a function of the state, so every partition that
// reaches a state judges it alike, and its owner need not decode it to judge it again.
func (ps *partSearch) successor(level int, fp uint64, st State, at place, ei int, ev *cmc.Event, out Outcome, before []any) error {
	mc := ps.mc
	step := func() *wireStep { return &wireStep{Event: ei, Values: values(out.Points)} }
	if f := out.Failure; f != nil {
		ps.found(&candidate{Length: level + 1, State: fp, Key: at.key, Run: int64(at.run), Step: step(), Violation: NewViolation(f.Kind, "", f.Message, f.Site)})
		return nil
	}
	ps.next = append(ps.next[:0], st...)
	if err := mc.capture(ps.next, ev.Touches); err != nil {
		return fmt.Errorf("a successor at depth %d (by %s) cannot be captured: %w", level+1, ev.Label, err)
	}
	if v := mc.StepVerdict(before); v != nil {
		ps.found(&candidate{Length: level + 1, State: fp, Key: at.key, Run: int64(at.run), Step: step(), Violation: v})
		return nil
	}
	h := mc.Hash(ps.next)
	to := Owner(h, ps.part.Count)
	i := -1
	if to == ps.part.Index {
		if ps.v.has(h, nil) {
			return nil // admitted at an earlier level
		}
		var first bool
		if i, first = ps.arrive(h); !first {
			return nil // generated before in the level, with a lesser link (arrivals.go)
		}
	} else {
		if ps.sent.before(h, level) {
			return nil // its owner has it
		}
		if _, ok := ps.sentNow.get(h); ok {
			return nil // sent before in the level, with a lesser link
		}
	}
	verdict, v := ps.judge()
	if v != nil {
		// The trace is the path to this state's parent and the step: the parent's owner
		// answers for it when the trace is rebuilt, before the state itself is admitted.
		ps.found(&candidate{Length: level + 1, State: fp, Key: at.key, Run: int64(at.run), Step: step(), Violation: v})
	}
	if to == ps.part.Index {
		ps.vals32 = ps.vals32[:0]
		for _, p := range out.Points {
			ps.vals32 = append(ps.vals32, int32(p.Value))
		}
		var st State
		if verdict == verdictOK {
			st = ps.next
		}
		ps.keep(i, h, fp, at, verdict, ei, ps.vals32, st)
		return nil
	}
	ps.values = ps.values[:0]
	for _, p := range out.Points {
		ps.values = append(ps.values, p.Value)
	}
	ps.sentNow.put(h, 0)
	ps.sent.add(h, level)
	ps.out[to] = appendWireState(ps.out[to], fp, at, verdict, ei, ps.values, ps.blobs(ps.next))
	ps.outN[to]++
	if ps.outN[to] >= batchStates || len(ps.out[to]) >= batchBytes {
		return ps.flush(level, to)
	}
	return nil
}

// judge judges the live state: an invariant it violates, or whether a constraint or bound cuts it.
func (ps *partSearch) judge() (byte, *Violation) {
	mc := ps.mc
	if v := mc.StateVerdict(); v != nil {
		return verdictBad, v
	}
	if mc.cut() {
		return verdictCut, nil
	}
	return verdictOK, nil
}

// flush sends the batch being filled for partition to, if it holds anything.
func (ps *partSearch) flush(level, to int) error {
	b := ps.out[to]
	if len(b) == 0 {
		return nil
	}
	ps.out[to], ps.outN[to] = nil, 0
	ps.rep.Batches[to]++
	ps.rep.Bytes += int64(len(b))
	if err := ps.part.Exchange.Send(ps.ctx, level, to, b); err != nil {
		return fmt.Errorf("send level %d to partition %d: %w", level, to, err)
	}
	return nil
}

// barrier reports the round and returns every partition's report.
func (ps *partSearch) barrier(round int) ([]*partReport, error) {
	raw, err := ps.part.Exchange.Barrier(ps.ctx, round, encodeReport(&ps.rep))
	if err != nil {
		return nil, fmt.Errorf("level %d barrier: %w", round, err)
	}
	if len(raw) != ps.part.Count {
		return nil, fmt.Errorf("level %d barrier: %d reports for %d partitions", round, len(raw), ps.part.Count)
	}
	out := make([]*partReport, len(raw))
	for q, b := range raw {
		if out[q], err = decodeReport(b, ps.part.Count, len(ps.mc.Def.Events)); err != nil {
			return nil, fmt.Errorf("partition %d: %w", q, err)
		}
	}
	return out, nil
}

// rebuild finds the path to the chosen violation across partitions, from round on, and records
// its trace. Every partition takes part (each round is a barrier); all get the same trace.
func (ps *partSearch) rebuild(round int, c *candidate) (*Trace, error) {
	var rev []pathStep
	ask := c.State
	depth := c.Length
	if c.Step != nil {
		rev = append(rev, pathStep{event: c.Step.Event, values: c.Step.Values})
		depth--
	}
	for ; ; round++ {
		ps.rep = partReport{Batches: make([]int, ps.part.Count)}
		owner := Owner(ask, ps.part.Count)
		if owner == ps.part.Index {
			a, err := ps.link(ask, depth)
			if err != nil {
				return nil, err
			}
			ps.rep.Link = a
		}
		reports, err := ps.barrier(round)
		if err != nil {
			return nil, err
		}
		a := reports[owner].Link
		if a == nil {
			return nil, fmt.Errorf("rebuilding the trace: partition %d did not answer for state %016x", owner, ask)
		}
		if a.Root {
			break
		}
		if depth == 0 {
			return nil, errors.New("rebuilding the trace: the parent links do not lead to the initial state")
		}
		rev = append(rev, pathStep{event: a.Step.Event, values: a.Step.Values})
		ask, depth = a.Parent, depth-1
	}
	slices.Reverse(rev)
	t, _, _, err := ps.mc.record(ps.init, rev)
	if err != nil {
		t = &Trace{Model: ps.mc.Def.Name}
		c.Violation.Message += " (the trace could not be recorded: " + err.Error() + ")"
	}
	t.Violation = c.Violation
	return t, nil
}

// link finds the parent link of the state with fingerprint fp, admitted at depth.
func (ps *partSearch) link(fp uint64, depth int) (*linkAnswer, error) {
	if depth < len(ps.levels) {
		end := ps.links.len()
		if depth+1 < len(ps.levels) {
			end = ps.levels[depth+1]
		}
		for i := ps.levels[depth]; i < end; i++ {
			l := ps.links.at(i)
			if l.fp != fp {
				continue
			}
			a := &linkAnswer{Root: l.root, Parent: l.parent, Step: wireStep{Event: int(l.event)}}
			for j := range l.n {
				a.Step.Values = append(a.Step.Values, int(ps.vals.at(int(l.off+j))))
			}
			return a, nil
		}
	}
	return nil, fmt.Errorf("rebuilding the trace: partition %d has no state %016x at depth %d", ps.part.Index, fp, depth)
}
