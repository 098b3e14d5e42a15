package engine

import "container/heap"

// A queue holds the states a best-first search has yet to expand, the best first: the highest
// score, compared level by level, and among equal scores the one found first, so the order is a
// function of the model alone. Each state's component ids live in a slot of one packed array,
// reused once the state is taken; the heap orders slot numbers.
type queue struct {
	k, levels int
	ids       []uint32 // slot i holds ids[i*k:(i+1)*k]
	scores    []int    // slot i's score, levels[i*levels:(i+1)*levels]
	free      []int32  // slots to reuse
	order     []entry  // the heap
	seq       uint64
}

type entry struct {
	slot, idx, depth int32
	seq              uint64
}

func newQueue(k, levels int) *queue { return &queue{k: k, levels: levels} }

func (q *queue) len() int { return len(q.order) }

// push adds state s, at trail index idx and depth, with the given score (levels values).
func (q *queue) push(idx int32, depth int, s State, score []int) {
	var slot int32
	if n := len(q.free); n > 0 {
		slot, q.free = q.free[n-1], q.free[:n-1]
		copy(q.ids[int(slot)*q.k:], s)
		copy(q.scores[int(slot)*q.levels:], score)
	} else {
		slot = int32(len(q.ids) / max(q.k, 1))
		q.ids = append(q.ids, s...)
		q.scores = append(q.scores, score...)
	}
	heap.Push((*queueHeap)(q), entry{slot: slot, idx: idx, depth: int32(depth), seq: q.seq})
	q.seq++
}

// pop takes the best state and copies its ids into dst and its score into score.
func (q *queue) pop(dst State, score []int) (int32, int, State, []int) {
	e := heap.Pop((*queueHeap)(q)).(entry)
	dst = append(dst[:0], q.ids[int(e.slot)*q.k:int(e.slot+1)*q.k]...)
	score = append(score[:0], q.scores[int(e.slot)*q.levels:int(e.slot+1)*q.levels]...)
	q.free = append(q.free, e.slot)
	return e.idx, int(e.depth), dst, score
}

// bytes is the memory the queue holds.
func (q *queue) bytes() int64 {
	return int64(cap(q.ids))*4 + int64(cap(q.scores))*8 + int64(cap(q.free))*4 + int64(cap(q.order))*24
}

// queueHeap is the queue as container/heap sees it.
type queueHeap queue

func (h *queueHeap) Len() int      { return len(h.order) }
func (h *queueHeap) Swap(i, j int) { h.order[i], h.order[j] = h.order[j], h.order[i] }
func (h *queueHeap) Push(x any)    { h.order = append(h.order, x.(entry)) }
func (h *queueHeap) Pop() any {
	n := len(h.order) - 1
	e := h.order[n]
	h.order = h.order[:n]
	return e
}

// Less says whether entry i is better: a higher score, level by level, else found earlier.
func (h *queueHeap) Less(i, j int) bool {
	a, b := h.order[i], h.order[j]
	sa := h.scores[int(a.slot)*h.levels : int(a.slot+1)*h.levels]
	sb := h.scores[int(b.slot)*h.levels : int(b.slot+1)*h.levels]
	for l := range sa {
		if sa[l] != sb[l] {
			return sa[l] > sb[l]
		}
	}
	return a.seq < b.seq
}
