package engine

import (
	"sync/atomic"
	"unsafe"
)

// visited is the set of states seen. By default it stores 64-bit hashes only (hash compaction, as
// CMC and SPIN do) in an open-addressing table; exact mode keeps every state's component ids.
//
// One goroutine adds; while a parallel search's workers run, they may ask seen at the same time
// (parallel.go): slots are written atomically, the table in use is published atomically, and a
// table outgrown meanwhile stays mapped until settle, when no worker runs.
type visited struct {
	table []uint64 // 0 marks an empty slot; a hash of 0 is stored as 1
	n     int
	exact map[string]struct{}
	// current is table, for seen, on a cache line of its own: the adding goroutine writes n at
	// every state, and a reader's line would move between the cores with it (padded.go).
	_       cacheLinePad
	current atomic.Pointer[[]uint64]
	_       cacheLinePad
	retired [][]uint64 // tables grown out of while readers may hold them
	readers bool       // seen may be running on other goroutines
	// depths, when set, makes add depth-aware for iterative deepening (deepen.go): a state is
	// new again when found at a smaller depth than before. at is the depth of the states added.
	depths map[string]int32
	at     int32
	// recent holds hashes add answered for lately, new or not: most successors were reached
	// shortly before (a depth-first search's neighbours, a level's states reached from several
	// parents), and the table stays in the core's cache where the visited table's slot is a miss
	// to memory (TwoPhase RM=8 depth-first: 71% of the lookups were answered here).
	recent *recentHashes
}

func newVisited(exact bool) *visited {
	v := &visited{table: offHeap[uint64](1 << 16), recent: new(recentHashes)}
	if exact {
		v.exact = make(map[string]struct{})
	}
	v.current.Store(&v.table)
	return v
}

// large reports whether the table is far larger than a processor's caches, so that most lookups
// are misses to memory (deferred.go).
func (v *visited) large() bool { return len(v.table) >= largeTable }

// largeSeen is large for a goroutine that may run while another adds (seen's).
func (v *visited) largeSeen() bool { return len(*v.current.Load()) >= largeTable }

// largeTable is the number of slots from which a table is large: 16 MiB, half the last-level
// cache this machine reports and eight times a core's L2 (a variable for tests). From 64 MiB
// down to 16, TwoPhase RM=8 and RM=9 depth-first on one goroutine took 4-6% less time, and
// breadth-first about 4% (docs/performance.md, session 22).
var largeTable = 1 << 21

// keyed reports whether add and has need the state's key (exact mode, iterative deepening).
func (v *visited) keyed() bool { return v.exact != nil || v.depths != nil }

// add reports whether the state is new, and records it. key is the exact identity (component ids
// as bytes) used only in exact mode.
func (v *visited) add(h uint64, key []byte) bool {
	if v.depths != nil {
		return v.shallower(key)
	}
	if v.exact != nil {
		if _, ok := v.exact[string(key)]; ok {
			return false
		}
		v.exact[string(key)] = struct{}{}
		v.n++
		return true
	}
	if h == 0 {
		h = 1
	}
	if v.recent.has(h) {
		return false
	}
	v.recent.add(h)
	return v.insert(h)
}

// insert adds h, not 0, to the table, reporting whether it is new.
func (v *visited) insert(h uint64) bool {
	if 4*(v.n+1) > 3*len(v.table) {
		v.grow()
	}
	mask := uint64(len(v.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch v.table[i] {
		case h:
			return false
		case 0:
			if v.readers {
				atomic.StoreUint64(&v.table[i], h)
			} else {
				v.table[i] = h // an atomic store is a full barrier on amd64
			}
			v.n++
			return true
		}
	}
}

// slot is where the table's lookup of h begins.
func (v *visited) slot(h uint64) unsafe.Pointer {
	return unsafe.Pointer(&v.table[max(h, 1)&uint64(len(v.table)-1)])
}

// prefetchSeen asks for the cache line where seen(h) begins to look.
func (v *visited) prefetchSeen(h uint64) {
	t := *v.current.Load()
	prefetch(unsafe.Pointer(&t[max(h, 1)&uint64(len(t)-1)]))
}

// seen reports whether a hash was added, as far as this goroutine can tell while another adds:
// true only if it was, false also when the add is too recent to be seen. Only for compaction mode.
func (v *visited) seen(h uint64) bool {
	if h == 0 {
		h = 1
	}
	t := *v.current.Load()
	mask := uint64(len(t) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch atomic.LoadUint64(&t[i]) {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// has reports whether the state was recorded.
func (v *visited) has(h uint64, key []byte) bool {
	if v.depths != nil {
		_, ok := v.depths[string(key)]
		return ok
	}
	if v.exact != nil {
		_, ok := v.exact[string(key)]
		return ok
	}
	if h == 0 {
		h = 1
	}
	mask := uint64(len(v.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch v.table[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

func (v *visited) grow() {
	old := v.table
	if v.readers {
		v.retired = append(v.retired, old)
	} else {
		defer freeOffHeap(old)
	}
	v.table = offHeap[uint64](2 * len(old))
	hugePages(v.table)
	mask := uint64(len(v.table) - 1)
	// The old table is read in order and each part's memory is given back once its hashes moved:
	// a hash at old slot i lands near slot i or i+len(old) of the new table, so the new table's
	// memory fills in step and the two are never both whole in memory (at 10 million states that
	// was 64 MiB of peak RSS). A seen running meanwhile reads zeros there: "not seen", as allowed.
	for start := 0; start < len(old); start += releaseSlots {
		part := old[start:min(start+releaseSlots, len(old))]
		for _, h := range part {
			if h == 0 {
				continue
			}
			i := h & mask
			for v.table[i] != 0 {
				i = (i + 1) & mask
			}
			v.table[i] = h
		}
		releaseOffHeap(part)
	}
	t := v.table
	v.current.Store(&t)
}

// releaseSlots is how many slots of an outgrown table grow moves before giving their memory back.
const releaseSlots = 1 << 16

// settle frees the tables grown out of; no seen may be running.
func (v *visited) settle() {
	for _, t := range v.retired {
		freeOffHeap(t)
	}
	v.retired = nil
}

// free releases the table; the set must not be used afterwards.
func (v *visited) free() {
	v.settle()
	freeOffHeap(v.table)
	v.table = nil
}

// collisionBound is an upper bound on the probability that two of n distinct states had the same
// 64-bit hash, so one of them was never explored (the birthday bound n(n-1)/2 / 2^64).
func collisionBound(n int64) float64 {
	f := float64(n)
	return f * (f - 1) / 2 / 18446744073709551616.0
}

// bytes is the memory the set holds.
func (v *visited) bytes() int64 {
	if v.exact != nil {
		return 0
	}
	return int64(len(v.table)) * 8
}
