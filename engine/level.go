package engine

import (
	"fmt"
	"os"
)

// A level is one level of a breadth-first search: the states at one depth, pushed in order
// while the level before is expanded, then read once in order. A level of millions of states
// would hold them all in memory; beyond a block, full blocks go to a temporary file (spill.go),
// so memory holds the block being written and the block being read. Reading must be in order
// (at with i counting up from 0): a block is read from the file when i reaches it.
type level struct {
	w, r   *frontier // the block being written; the block last read from the file
	rFirst int       // the index of r's first entry
	file   *os.File
	blocks int // full blocks in the file
	n      int
	noFile bool
}

const levelBlock = 1 << 14

func newLevel(k int) *level { return &level{w: newFrontier(k), r: newFrontier(k)} }

func (l *level) len() int { return l.n }

func (l *level) push(idx int32, depth int, s State) {
	l.w.push(idx, depth, s)
	l.n++
	if l.w.len() == levelBlock && l.spill() {
		l.w.reset()
	}
}

// spill writes the full block w to the file. A block is its entries' trail indexes, depths and
// component ids, one array after another, at a fixed size.
func (l *level) spill() bool {
	if l.noFile {
		return false
	}
	if l.file == nil {
		f, err := spillFile()
		if err != nil {
			l.noFile = true
			return false
		}
		l.file = f
	}
	off := int64(l.blocks) * l.blockBytes()
	for _, b := range [][]byte{asBytes(l.w.idx), asBytes(l.w.depth), asBytes(l.w.ids)} {
		if _, err := l.file.WriteAt(b, off); err != nil {
			l.noFile = true
			return false
		}
		off += int64(len(b))
	}
	l.blocks++
	return true
}

func (l *level) blockBytes() int64 { return int64(levelBlock) * int64(8+4*l.w.k) }

// at returns entry i, valid until the next call; i must count up from 0 (see level).
func (l *level) at(i int) (int32, int, State, error) {
	if b := i / levelBlock; b < l.blocks {
		if i < l.rFirst || i >= l.rFirst+l.r.len() {
			if err := l.read(b); err != nil {
				return 0, 0, nil, err
			}
		}
		idx, depth, s := l.r.at(i - l.rFirst)
		return idx, depth, s, nil
	}
	idx, depth, s := l.w.at(i - l.blocks*levelBlock)
	return idx, depth, s, nil
}

// read loads block b from the file into r.
func (l *level) read(b int) error {
	l.r.idx = sized(l.r.idx, levelBlock)
	l.r.depth = sized(l.r.depth, levelBlock)
	l.r.ids = sized(l.r.ids, levelBlock*l.w.k)
	off := int64(b) * l.blockBytes()
	for _, p := range [][]byte{asBytes(l.r.idx), asBytes(l.r.depth), asBytes(l.r.ids)} {
		if _, err := l.file.ReadAt(p, off); err != nil {
			return fmt.Errorf("reading a level of the search back from %s: %w", l.file.Name(), err)
		}
		off += int64(len(p))
	}
	l.rFirst = b * levelBlock
	return nil
}

// reset empties the level for reuse; its file is written over.
func (l *level) reset() {
	l.w.reset()
	l.r.reset()
	l.rFirst, l.blocks, l.n = 0, 0, 0
}

func (l *level) free() {
	l.w.free()
	l.r.free()
	closeSpill(l.file)
	l.file = nil
}

// bytes is the memory the level holds; spilled is what is in its file.
func (l *level) bytes() int64   { return l.w.bytes() + l.r.bytes() }
func (l *level) spilled() int64 { return int64(l.blocks) * l.blockBytes() }

// sized returns s with length n, moved to an array off the heap the first time it is too small.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		s = appendOff(s[:0], make([]T, n)...)
	}
	return s[:n]
}
