package engine

// A successor's lookup in the visited set is, for most states of a large search, a miss to memory:
// the table is far larger than the caches, and a hash lands anywhere in it. The search does not
// wait for it. A successor the recent hashes do not answer for is judged as if it were new (its
// invariants and constraints run on the objects the handler left, as they must, since those are
// gone after the next run), its slot's cache line is asked for (prefetch), and the lookup waits in
// a list until the state's runs are done; meanwhile the next runs go on, and by then the line has
// arrived. The list is then taken in order and does exactly what the search does after a lookup:
// the same states in the same order, the same trail, counts and depth. A successor whose
// invariant fails, a handler that fails, any violation: the list is taken first, so everything
// before it happens in the search's order.

// deferred is the list of successors whose lookup waits.
type deferred struct {
	list []laterState
	ids  []uint32 // their states, one after another
	vals []int32  // their runs' Choose values
}

// A laterState is a successor whose lookup waits.
type laterState struct {
	hash   uint64
	parent int32
	event  int32
	vOff   uint32 // vals[vOff:vOff+vN]
	vN     uint32
	cut    bool // a constraint keeps it from being expanded
}

// deferring reports whether the search puts lookups off: only once the visited table is far
// larger than a processor's caches (below that a lookup seldom misses, and judging a successor
// that turns out to be seen costs more than the wait: TwoPhase RM=7, whose table fits, took 2%
// more instructions), not in exact mode or iterative deepening (their set is not a table of
// hashes), not while the self-check samples transitions, and not for models whose new states need
// more than invariants and constraints judged (scenarios, refinement). A model whose invariants
// cost more than a miss to memory pays for judging the successors that turn out seen; measured
// only on TwoPhase (docs/performance.md).
func (s *search) deferring() bool {
	return s.defers && s.visited.large() && !s.opts.Exact && s.visited.depths == nil && s.checked >= s.limit && len(s.scenarios.list) == 0 &&
		len(s.mc.Def.Refinements) == 0
}

// put puts off the lookup of the successor s.next with hash h, reached from the state at trail
// index parent by a run of event ei. It reports false when the successor must be looked up now:
// an invariant fails on it.
func (d *deferred) put(s *search, h uint64, parent int32, ei int, points []ChoicePoint) bool {
	v := s.visited
	if v.recent.has(h) {
		return true // seen
	}
	if s.mc.StateVerdict() != nil {
		return false
	}
	cut := s.mc.cut()
	v.recent.add(h)
	prefetch(v.slot(h))
	d.list = append(d.list, laterState{hash: max(h, 1), parent: parent, event: int32(ei), vOff: uint32(len(d.vals)), vN: uint32(len(points)), cut: cut})
	d.ids = append(d.ids, s.next...)
	for _, p := range points {
		d.vals = append(d.vals, int32(p.Value))
	}
	return true
}

// resolve looks the waiting successors up, in order, and does with each what the search does
// after a lookup: a new one is stored and, unless a constraint cuts it, goes to emit.
func (s *search) resolve(emit func(int32, State)) {
	d := &s.later
	if len(d.list) == 0 {
		return
	}
	k := len(s.init)
	for i, l := range d.list {
		if !s.visited.insert(l.hash) {
			continue
		}
		nidx := int32(s.trail.len())
		s.trail.add(trailEntry{parent: l.parent, event: l.event, off: uint32(s.values.len()), n: l.vN})
		for _, v := range d.vals[l.vOff : l.vOff+l.vN] {
			s.values.add(v)
		}
		s.res.States++
		s.res.Depth = max(s.res.Depth, s.depth+1)
		if l.cut {
			s.res.Cut++
			continue
		}
		emit(nidx, State(d.ids[i*k:(i+1)*k:(i+1)*k]))
	}
	d.list, d.ids, d.vals = d.list[:0], d.ids[:0], d.vals[:0]
}

// resolve looks up the successors whose lookups waited, marking those the visited set has as
// seen: the search's merge then passes them by. A breadth-first worker resolves a chunk's at its
// end (the lookups of its last states wait the least), the depth-first helper a state's.
func (w *bfsWorker) resolve(c *chunk) {
	for _, i := range w.later {
		if r := &c.recs[i]; w.visited.seen(r.hash) {
			w.judged.add(r.hash)
			r.seen = true
		}
	}
	w.later = w.later[:0]
}
