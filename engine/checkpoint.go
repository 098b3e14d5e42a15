package engine

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A partition's checkpoint (partition.go): what it needs to go on from the start of a level's
// expansion without redoing the levels before, written after each admission. A partition started
// again (after kill -9) reads it and tells the exchange to skip what the levels before sent; the
// search is deterministic, so what it sends again is what it sent before, which the transport
// drops by id. Without a checkpoint it starts from level 0 and reaches the same point the same
// way, only later.
//
// It holds the figures summed so far, the level's report as admission left it, the visited set,
// the parent links, what the partition sent at earlier levels (sentCache: it decides what is sent
// again, and what is sent again must be what was sent before), and the level's states as their
// components' canonical encodings (ids are this process's), then their keys. It is written whole every level; the
// cost grows with the partition's states (see docs/cluster.md).

// Checkpoints keep one partition's checkpoint.
type Checkpoints interface {
	// Save replaces the checkpoint with what write writes, all or nothing.
	Save(write func(io.Writer) error) error
	// Load opens the last checkpoint saved; nil, nil when there is none.
	Load() (io.ReadCloser, error)
}

// A Resumer is an Exchange that can skip what the levels and rounds before level sent, for a
// partition that goes on from a checkpoint at level.
type Resumer interface {
	Resume(level int)
}

// A Forgetter is an Exchange that can drop what the levels before level sent this partition,
// once every partition has a checkpoint at level or later: no partition started again goes back
// before it (without checkpoints, one would start from level 0 and need them all).
type Forgetter interface {
	Forget(ctx context.Context, level int) error
}

const checkpointMagic = "cmc-partition-checkpoint-2"

// checkpointHead is the checkpoint's JSON part.
type checkpointHead struct {
	Partition, Count, Level int
	Report                  partReport
	States, Transitions     int64
	Expanded, Cut           int64
	Depth                   int
	Runs                    []int64
	Figures                 []PartitionFigures
	Levels                  []int
	Visited, Links, Vals    int
	Frontier                int
}

// checkpoint saves the partition at level, whose admitted states are in cur.
func (ps *partSearch) checkpoint(level int, cur *level) error {
	cp := ps.part.Checkpoints
	if cp == nil {
		return nil
	}
	err := cp.Save(func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		r := ps.res
		head := checkpointHead{Partition: ps.part.Index, Count: ps.part.Count, Level: level, Report: ps.rep,
			States: r.States, Transitions: r.Transitions, Expanded: r.Expanded, Cut: r.Cut, Depth: r.Depth,
			Runs: ps.runs, Figures: ps.figures, Levels: ps.levels, Visited: ps.v.n, Links: ps.links.len(),
			Vals: ps.vals.len(), Frontier: cur.len()}
		hb, err := json.Marshal(head)
		if err != nil {
			return err
		}
		bw.WriteString(checkpointMagic)
		var word [8]byte
		put := func(v uint64) {
			binary.LittleEndian.PutUint64(word[:], v)
			bw.Write(word[:])
		}
		put(uint64(len(hb)))
		bw.Write(hb)
		put(uint64(len(ps.v.table)))
		bw.Write(asBytes(ps.v.table))
		err = ps.links.each(func(l partLink) {
			put(l.fp)
			put(l.parent)
			put(uint64(uint32(l.event)) | uint64(l.n)<<32)
			root := uint64(0)
			if l.root {
				root = 1
			}
			put(uint64(l.off) | root<<32)
		})
		if err != nil {
			return err
		}
		if err := ps.vals.each(func(v int32) { put(uint64(uint32(v))) }); err != nil {
			return err
		}
		for _, e := range ps.sent {
			put(e.h)
			put(uint64(uint32(e.level)))
		}
		var lb []byte
		for i := range cur.len() {
			_, _, st, err := cur.at(i)
			if err != nil {
				return err
			}
			for _, id := range st {
				b := ps.mc.pool.blob(id)
				lb = binary.AppendUvarint(lb[:0], uint64(len(b)))
				bw.Write(lb)
				bw.Write(b)
			}
		}
		for _, k := range ps.nextKeys {
			put(k)
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("write the checkpoint of level %d: %w", level, err)
	}
	return errors.Join(ps.links.err, ps.vals.err)
}

// resume loads the checkpoint, if there is one, and returns its level (-1: none), with the
// level's states pushed onto cur.
func (ps *partSearch) resume(cur *level) (int, error) {
	cp := ps.part.Checkpoints
	if cp == nil {
		return -1, nil
	}
	rc, err := cp.Load()
	if err != nil || rc == nil {
		return -1, err
	}
	defer rc.Close()
	level, err := ps.readCheckpoint(bufio.NewReaderSize(rc, 1<<20), cur)
	if err != nil {
		return -1, fmt.Errorf("read the partition's checkpoint (remove it to start the partition from level 0): %w", err)
	}
	if r, ok := ps.part.Exchange.(Resumer); ok {
		r.Resume(level)
	}
	if ps.part.Resumed != nil {
		ps.part.Resumed(level)
	}
	return level, nil
}

func (ps *partSearch) readCheckpoint(br *bufio.Reader, cur *level) (int, error) {
	magic := make([]byte, len(checkpointMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != checkpointMagic {
		return 0, errors.New("not a checkpoint of this version")
	}
	var word [8]byte
	var rerr error
	get := func() uint64 {
		if _, err := io.ReadFull(br, word[:]); err != nil && rerr == nil {
			rerr = fmt.Errorf("cut short: %w", err)
		}
		return binary.LittleEndian.Uint64(word[:])
	}
	n := get()
	if rerr != nil || n > 1<<30 {
		return 0, errors.New("bad header")
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(br, hb); err != nil {
		return 0, err
	}
	var h checkpointHead
	if err := json.Unmarshal(hb, &h); err != nil {
		return 0, err
	}
	if h.Partition != ps.part.Index || h.Count != ps.part.Count || len(h.Runs) != len(ps.mc.Def.Events) || len(h.Figures) != ps.part.Count {
		return 0, fmt.Errorf("it is partition %d of %d's, for a model of %d events; this is partition %d of %d, of %d", h.Partition, h.Count, len(h.Runs), ps.part.Index, ps.part.Count, len(ps.mc.Def.Events))
	}
	r := ps.res
	r.States, r.Transitions, r.Expanded, r.Cut, r.Depth = h.States, h.Transitions, h.Expanded, h.Cut, h.Depth
	copy(ps.runs, h.Runs)
	copy(ps.figures, h.Figures)
	ps.rep, ps.levels = h.Report, h.Levels
	size := get()
	if size == 0 || size&(size-1) != 0 || size > 1<<40 || rerr != nil {
		return 0, errors.New("bad visited table")
	}
	table := offHeap[uint64](int(size))
	if _, err := io.ReadFull(br, asBytes(table)); err != nil {
		freeOffHeap(table)
		return 0, err
	}
	freeOffHeap(ps.v.table)
	ps.v.table, ps.v.n = table, h.Visited
	ps.v.current.Store(&ps.v.table)
	for range h.Links {
		fp, parent, en, or := get(), get(), get(), get()
		ps.links.add(partLink{fp: fp, parent: parent, event: int32(uint32(en)), n: uint32(en >> 32), off: uint32(or), root: or>>32 == 1})
	}
	for range h.Vals {
		ps.vals.add(int32(uint32(get())))
	}
	for i := range ps.sent {
		ps.sent[i].h, ps.sent[i].level = get(), int32(uint32(get()))
	}
	if rerr != nil {
		return 0, rerr
	}
	st := make(State, ps.k)
	var b []byte
	for range h.Frontier {
		for c := range st {
			n, err := binary.ReadUvarint(br)
			if err != nil || n > 1<<32 {
				return 0, fmt.Errorf("a state is cut short: %v", err)
			}
			if cap(b) < int(n) {
				b = make([]byte, n)
			}
			b = b[:n]
			if _, err := io.ReadFull(br, b); err != nil {
				return 0, err
			}
			st[c] = ps.mc.pool.intern(b)
		}
		cur.push(0, h.Level, st)
	}
	for range h.Frontier {
		ps.nextKeys = append(ps.nextKeys, get())
	}
	if rerr != nil {
		return 0, rerr
	}
	return h.Level, nil
}
