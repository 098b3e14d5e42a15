package engine

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Admission in a partitioned search (partition.go). A partition holds each state that is new at
// the next level once, from the moment it is first generated or received to its admission, with
// the least (parent's fingerprint, event, Choose values) over all its arrivals as its parent link:
//
//   - A partition expands a level in ascending fingerprint order (its admission order), the events
//     of a state in ascending order, and an event's Choose combinations in ascending lexicographic
//     order (nextPrefix). So the first successor with a given fingerprint it generates in a level
//     carries its least (parent, event, values) of the level: it drops the later ones at the
//     source, its own (the level's arrivals) and those for other partitions (sentNow).
//   - Batches from other partitions are merged as they arrive (Exchange.Receive hands them over
//     while the level is expanded, and the rest at the barrier); a fingerprint already visited is
//     dropped, one already arrived keeps the lesser link.
//
// The result depends on neither the order of arrival nor the number of partitions: admission
// takes the new states in fingerprint order, each with the least link of all its arrivals, and a
// violation's candidate is recorded at every partition's first occurrence of the state, the least
// of that partition's.

// arrivals are the states new at the next level that this partition owns, one entry each, in
// flat arrays off the Go heap (offheap.go).
type arrivals struct {
	index   fpIndex // fingerprint -> arrival
	fp      []uint64
	parent  []uint64
	at      []place
	verdict []byte
	mine    []bool // this partition generated it in the level (else it was only received)
	event   []int32
	voff    []uint32 // vals[voff[i]:voff[i]+vn[i]] are arrival i's Choose values
	vn      []uint32
	vals    []int32
	ids     []uint32 // k per arrival: the state in this partition's pool (zeros unless verdictOK)
}

func (a *arrivals) len() int { return len(a.fp) }

func (a *arrivals) values(i int) []int32 { return a.vals[a.voff[i] : a.voff[i]+a.vn[i]] }

// add records a new arrival; st may be nil (a state not to be expanded keeps no ids).
func (a *arrivals) add(k int, fp, parent uint64, at place, verdict byte, mine bool, event int, values []int32, st State) {
	a.index.put(fp, uint32(len(a.fp)))
	a.fp = appendOff(a.fp, fp)
	a.parent = appendOff(a.parent, parent)
	a.at = appendOff(a.at, at)
	a.verdict = appendOff(a.verdict, verdict)
	a.mine = appendOff(a.mine, mine)
	a.event = appendOff(a.event, int32(event))
	a.voff = appendOff(a.voff, uint32(len(a.vals)))
	a.vn = appendOff(a.vn, uint32(len(values)))
	a.vals = appendOff(a.vals, values...)
	if st == nil {
		a.ids = appendOff(a.ids, make([]uint32, k)...)
	} else {
		a.ids = appendOff(a.ids, st...)
	}
}

// relink gives arrival i the link (parent, event, values) if it comes before the one it has.
func (a *arrivals) relink(i int, parent uint64, at place, event int, values []int32) {
	if at.compare(a.at[i]) >= 0 {
		return
	}
	a.parent[i], a.at[i], a.event[i] = parent, at, int32(event)
	if int(a.vn[i]) >= len(values) {
		copy(a.vals[a.voff[i]:], values)
	} else {
		a.voff[i] = uint32(len(a.vals))
		a.vals = appendOff(a.vals, values...)
	}
	a.vn[i] = uint32(len(values))
}

// A place is where the sequential breadth-first search meets a successor: the key of the state
// it expands and the ordinal of the handler run among that state's runs (events ascending, each
// event's Choose combinations in the order the engine enumerates them). A state's key is its
// parent's rank in the parent's level (over all partitions) in the high 32 bits and the run
// that reached it in the low 32: the sequential search's order of a level is the order of its
// states' keys, and the order of the places they were first met at.
type place struct {
	key uint64
	run uint32
}

func (p place) compare(q place) int {
	return cmp.Or(cmp.Compare(p.key, q.key), cmp.Compare(p.run, q.run))
}

func (a *arrivals) reset() {
	a.index.reset()
	a.fp, a.parent, a.at, a.verdict, a.mine, a.event = a.fp[:0], a.parent[:0], a.at[:0], a.verdict[:0], a.mine[:0], a.event[:0]
	a.voff, a.vn, a.vals, a.ids = a.voff[:0], a.vn[:0], a.vals[:0], a.ids[:0]
}

func (a *arrivals) free() {
	a.index.free()
	freeOffHeap(a.fp)
	freeOffHeap(a.parent)
	freeOffHeap(a.at)
	freeOffHeap(a.verdict)
	freeOffHeap(a.mine)
	freeOffHeap(a.event)
	freeOffHeap(a.voff)
	freeOffHeap(a.vn)
	freeOffHeap(a.vals)
	freeOffHeap(a.ids)
	*a = arrivals{}
}

// An fpIndex maps fingerprints to small numbers: an open-addressing table off the Go heap, as the
// visited set's (a fingerprint 0 is kept as 1, as there).
type fpIndex struct {
	keys []uint64 // 0 marks an empty slot
	vals []uint32
	n    int
}

func (x *fpIndex) slot(h uint64) (uint64, uint64) {
	if h == 0 {
		h = 1
	}
	mask := uint64(len(x.keys) - 1)
	i := h & mask
	for x.keys[i] != 0 && x.keys[i] != h {
		i = (i + 1) & mask
	}
	return h, i
}

// get returns the number kept for h.
func (x *fpIndex) get(h uint64) (uint32, bool) {
	if x.n == 0 {
		return 0, false
	}
	h, i := x.slot(h)
	return x.vals[i], x.keys[i] == h
}

// put keeps v for h.
func (x *fpIndex) put(h uint64, v uint32) {
	if 4*(x.n+1) > 3*len(x.keys) {
		x.grow()
	}
	h, i := x.slot(h)
	if x.keys[i] == 0 {
		x.n++
	}
	x.keys[i], x.vals[i] = h, v
}

func (x *fpIndex) grow() {
	keys, vals := x.keys, x.vals
	x.keys, x.vals = offHeap[uint64](max(2*len(keys), 1<<12)), offHeap[uint32](max(2*len(keys), 1<<12))
	x.n = 0
	for i, h := range keys {
		if h != 0 {
			x.put(h, vals[i])
		}
	}
	freeOffHeap(keys)
	freeOffHeap(vals)
}

// reset empties the index and keeps its table, which the next level likely needs again.
func (x *fpIndex) reset() {
	if x.n > 0 {
		clear(x.keys)
		x.n = 0
	}
}

func (x *fpIndex) free() {
	freeOffHeap(x.keys)
	freeOffHeap(x.vals)
	*x = fpIndex{}
}

// A sentCache remembers, direct-mapped, the fingerprints of successors sent to other partitions
// at earlier levels. One of those was admitted by its owner before this level's arrivals are:
// sending it again changes nothing. (Within a level, sentNow drops every later duplicate.)
type sentCache [1 << 16]struct {
	h     uint64
	level int32
}

func (c *sentCache) before(h uint64, level int) bool {
	e := &c[h&(uint64(len(c))-1)]
	return e.h == h && int(e.level) < level
}

func (c *sentCache) add(h uint64, level int) {
	if e := &c[h&(uint64(len(c))-1)]; e.h != h {
		e.h, e.level = h, int32(level)
	}
}

// arrive takes a successor this partition generated and owns, reached from parent by event with
// values: it reports whether the successor is the first of the level with its fingerprint that
// this partition generated (then the caller judges it and calls keep, else it is dropped).
func (ps *partSearch) arrive(fp uint64) (int, bool) {
	i, ok := ps.local.index.get(fp)
	if !ok {
		return -1, true
	}
	return int(i), !ps.local.mine[i]
}

// keep records the first successor with fingerprint fp this partition generated in the level;
// i is the arrival a batch from another partition made for it, or -1.
func (ps *partSearch) keep(i int, fp, parent uint64, at place, verdict byte, event int, values []int32, st State) {
	a := &ps.local
	if i < 0 {
		a.add(ps.k, fp, parent, at, verdict, true, event, values, st)
		return
	}
	a.mine[i] = true
	a.relink(i, parent, at, event, values)
}

// merge takes a batch another partition sent this one: each successor not visited joins the
// arrivals, or gives a known arrival a lesser link.
func (ps *partSearch) merge(b []byte) error {
	mc := ps.mc
	var err error
	if len(b) > 0 && b[0] == keysVersion {
		ps.levelKeys, err = decodeKeys(ps.levelKeys, b)
		return err
	}
	ps.in, err = decodeBatch(ps.in[:0], b, ps.k, len(mc.Def.Events))
	if err != nil {
		return err
	}
	st := make(State, ps.k)
	for j := range ps.in {
		w := &ps.in[j]
		ps.compHashes = ps.compHashes[:0]
		for _, c := range w.comps {
			ps.compHashes = append(ps.compHashes, xxhash.Sum64(c))
		}
		fp := stateHash(ps.compHashes)
		if Owner(fp, ps.part.Count) != ps.part.Index {
			return fmt.Errorf("%w: partition %d was sent a state partition %d owns (do all partitions run the same code?)", errWire, ps.part.Index, Owner(fp, ps.part.Count))
		}
		if ps.v.has(fp, nil) {
			continue
		}
		ps.vals32 = ps.vals32[:0]
		for _, v := range w.values {
			ps.vals32 = append(ps.vals32, int32(v))
		}
		if i, ok := ps.local.index.get(fp); ok {
			ps.local.relink(int(i), w.parent, w.at, w.event, ps.vals32)
			continue
		}
		var s State
		if w.verdict == verdictOK {
			for c, b := range w.comps {
				st[c] = mc.pool.intern(b)
			}
			s = st
		}
		ps.local.add(ps.k, fp, w.parent, w.at, w.verdict, false, w.event, ps.vals32, s)
	}
	return nil
}

// drain merges the batches of level that have arrived so far, without waiting.
func (ps *partSearch) drain(level int) error {
	if err := ps.part.Exchange.Receive(ps.ctx, level, nil, ps.merge); err != nil {
		return fmt.Errorf("receive level %d: %w", level, err)
	}
	return nil
}

// admit takes the rest of the batches sent to this partition at level-1, then admits the level's
// arrivals in the order of the places they were first met at, which is the sequential search's
// order: those with no verdict against them join next, with their keys in nextKeys.
func (ps *partSearch) admit(level int, counts []int, next *level) error {
	if level > 0 {
		if err := ps.part.Exchange.Receive(ps.ctx, level-1, counts, ps.merge); err != nil {
			return fmt.Errorf("receive level %d: %w", level-1, err)
		}
	}
	a := &ps.local
	order := make([]int32, a.len())
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int { return a.at[i].compare(a.at[j]) })
	// The keys of level-1's states, every partition's: a parent's rank is its key's place among them.
	all := append(ps.levelKeys, ps.keys...)
	slices.Sort(all)
	r := 0
	ps.levels = append(ps.levels, ps.links.len())
	for _, i := range order {
		fp := a.fp[i]
		if !ps.v.add(fp, nil) {
			continue // cannot happen: an arrival was not visited when it arrived
		}
		var key uint64 // the initial state's is 0
		if level > 0 {
			p := a.at[i].key
			for r < len(all) && all[r] < p {
				r++
			}
			if r == len(all) || all[r] != p {
				return fmt.Errorf("%w: a state of level %d was reached from a state of key %x, which no partition expanded", errWire, level, p)
			}
			key = uint64(r)<<32 | uint64(a.at[i].run)
		}
		vals := a.values(int(i))
		ps.links.add(partLink{fp: fp, parent: a.parent[i], event: a.event[i], off: uint32(ps.vals.len()), n: uint32(len(vals)), root: level == 0})
		for _, v := range vals {
			ps.vals.add(v)
		}
		ps.rep.Admitted++
		switch a.verdict[i] {
		case verdictCut:
			ps.rep.Cut++
		case verdictOK:
			next.push(int32(ps.links.len()-1), level, a.ids[int(i)*ps.k:(int(i)+1)*ps.k])
			ps.nextKeys = append(ps.nextKeys, key)
		}
	}
	ps.levelKeys = all[:0]
	a.reset()
	return nil
}
