package engine

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Admission in a partitioned search (partition.go): a level's arrivals, from this partition and
// from the others, are taken in the order of their fingerprints, never in the order they
// arrived, and a state reached from several parents gets the least (parent's fingerprint, event,
// Choose values) as its parent link. So which states are new, the parent links and every figure
// are the same whatever the order of arrival and the number of partitions.

// arrivals are successors a partition found for itself, in flat arrays: they keep their
// component ids (the partition's own pool) and never take the wire form.
type arrivals struct {
	fp, parent []uint64
	verdict    []byte
	event      []int32
	voff       []uint32 // vals[voff[i]:voff[i+1]] are arrival i's Choose values
	vals       []int
	ids        []uint32 // k per arrival
}

func (a *arrivals) add(fp, parent uint64, verdict byte, event int, values []int, st State) {
	if len(a.voff) == 0 {
		a.voff = append(a.voff, 0)
	}
	a.fp = append(a.fp, fp)
	a.parent = append(a.parent, parent)
	a.verdict = append(a.verdict, verdict)
	a.event = append(a.event, int32(event))
	a.vals = append(a.vals, values...)
	a.voff = append(a.voff, uint32(len(a.vals)))
	a.ids = append(a.ids, st...)
}

func (a *arrivals) len() int { return len(a.fp) }

func (a *arrivals) values(i int) []int { return a.vals[a.voff[i]:a.voff[i+1]] }

func (a *arrivals) reset() {
	a.fp, a.parent, a.verdict, a.event = a.fp[:0], a.parent[:0], a.verdict[:0], a.event[:0]
	a.voff, a.vals, a.ids = a.voff[:0], a.vals[:0], a.ids[:0]
}

// A sentCache remembers, direct-mapped, the fingerprints of successors sent to other partitions
// and the level they were sent at. One sent at an earlier level was admitted by its owner before
// this level's arrivals are: sending it again changes nothing. (One sent at this level is sent
// again: the owner picks the parent link among all of the level's arrivals.)
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

// admit takes the batches sent to this partition at level-1 and the successors it kept for
// itself, and admits the new states among them, in fingerprint order: new states with no verdict
// against them join next.
func (ps *partSearch) admit(level int, counts []int, next *level) error {
	mc := ps.mc
	ps.in = ps.in[:0]
	if level > 0 {
		got, err := ps.part.Exchange.Receive(ps.ctx, level-1, counts)
		if err != nil {
			return fmt.Errorf("receive level %d: %w", level-1, err)
		}
		for _, b := range got {
			if ps.in, err = decodeBatch(ps.in, b, ps.k, len(mc.Def.Events)); err != nil {
				return err
			}
		}
	}
	loc := &ps.local
	nl := loc.len()
	type key struct {
		fp uint64
		i  int // < nl: local arrival i; else remote arrival i-nl
	}
	keys := make([]key, 0, nl+len(ps.in))
	for i := range nl {
		keys = append(keys, key{loc.fp[i], i})
	}
	for i := range ps.in {
		d := digestStart(ps.digest[:0])
		for _, c := range ps.in[i].comps {
			d = digestAdd(d, xxhash.Sum64(c))
		}
		ps.digest = d
		fp := xxhash.Sum64(d)
		if Owner(fp, ps.part.Count) != ps.part.Index {
			return fmt.Errorf("%w: partition %d was sent a state partition %d owns (do all partitions run the same code?)", errWire, ps.part.Index, Owner(fp, ps.part.Count))
		}
		keys = append(keys, key{fp, nl + i})
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Compare(a.fp, b.fp) })
	link := func(i int) (uint64, int, []int) {
		if i < nl {
			return loc.parent[i], int(loc.event[i]), loc.values(i)
		}
		w := &ps.in[i-nl]
		return w.parent, w.event, w.values
	}
	ps.levels = append(ps.levels, ps.links.len())
	st := make(State, ps.k)
	for g := 0; g < len(keys); {
		fp := keys[g].fp
		best := keys[g].i
		bp, be, bv := link(best)
		h := g + 1
		for ; h < len(keys) && keys[h].fp == fp; h++ {
			p, e, v := link(keys[h].i)
			if cmp.Or(cmp.Compare(p, bp), cmp.Compare(e, be), slices.Compare(v, bv)) < 0 {
				best, bp, be, bv = keys[h].i, p, e, v
			}
		}
		g = h
		if !ps.v.add(fp, nil) {
			continue
		}
		ps.links.add(partLink{fp: fp, parent: bp, event: int32(be), off: uint32(ps.vals.len()), n: uint32(len(bv)), root: level == 0})
		for _, v := range bv {
			ps.vals.add(int32(v))
		}
		ps.rep.Admitted++
		var verdict byte
		if best < nl {
			verdict = loc.verdict[best]
			copy(st, loc.ids[best*ps.k:(best+1)*ps.k])
		} else {
			w := &ps.in[best-nl]
			verdict = w.verdict
			if verdict == verdictOK {
				for c, b := range w.comps {
					st[c] = mc.pool.intern(b)
				}
			}
		}
		switch verdict {
		case verdictCut:
			ps.rep.Cut++
		case verdictOK:
			next.push(int32(ps.links.len()-1), level, st)
		}
	}
	loc.reset()
	return nil
}
