package engine

// A frontier holds the states waiting to be expanded, packed: each one's trail index and depth,
// and their component ids one after another. A state costs 8 bytes plus 4 a component, with no
// allocation of its own (a State per entry cost a slice header, an allocation and the garbage
// collector's attention, for millions of states). The arrays are off the Go heap (offheap.go),
// and free releases them: a State the frontier returned must not outlive it.
type frontier struct {
	k     int // components per state
	idx   []int32
	depth []int32
	ids   []uint32
}

func newFrontier(k int) *frontier { return &frontier{k: k} }

func (f *frontier) len() int { return len(f.idx) }

func (f *frontier) push(idx int32, depth int, s State) {
	f.idx = appendOff(f.idx, idx)
	f.depth = appendOff(f.depth, int32(depth))
	f.ids = appendOff(f.ids, s...)
}

func (f *frontier) free() {
	freeOffHeap(f.idx)
	freeOffHeap(f.depth)
	freeOffHeap(f.ids)
	f.idx, f.depth, f.ids = nil, nil, nil
}

// at returns entry i; the State shares the frontier's memory, so it is valid until the frontier
// next changes.
func (f *frontier) at(i int) (int32, int, State) {
	return f.idx[i], int(f.depth[i]), f.ids[i*f.k : (i+1)*f.k : (i+1)*f.k]
}

// pop removes the last entry and returns it, valid until the next push.
func (f *frontier) pop() (int32, int, State) {
	n := len(f.idx) - 1
	idx, depth, s := f.at(n)
	f.idx, f.depth, f.ids = f.idx[:n], f.depth[:n], f.ids[:n*f.k]
	return idx, depth, s
}

func (f *frontier) reset() {
	f.idx, f.depth, f.ids = f.idx[:0], f.depth[:0], f.ids[:0]
}

// bytes is the memory the frontier holds.
func (f *frontier) bytes() int64 {
	return int64(cap(f.idx))*4 + int64(cap(f.depth))*4 + int64(cap(f.ids))*4
}
