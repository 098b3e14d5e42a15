package engine

import (
	"bytes"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// A pool interns components' canonical encodings, so a state is a short list of ids and the many
// states that share a component's value share its bytes (the thesis's state compression).
//
// The machines of a parallel search (parallel.go) share one pool, so a State means the same to all
// of them: interning is safe for concurrent use (the index is sharded by hash, each shard under its
// own lock), and an id's bytes and hash are read without a lock (entry), since they never change
// once the id is handed out. Which id a component gets then depends on which machine interned it
// first; nothing a search reports depends on ids (hashes come from the bytes, traces from replaying
// Choose values).
type pool struct {
	shards [poolShards]poolShard
	// dir is read at every entry, by every machine: a line of its own, away from the counts
	// an intern writes (padded.go).
	_     cacheLinePad
	dir   atomic.Pointer[[]*poolSegment] // id>>segmentBits -> the segment holding that id
	_     cacheLinePad
	grow  sync.Mutex    // held while a segment is added
	n     atomic.Uint32 // ids handed out
	bytes atomic.Int64  // of all encodings
}

const (
	poolShards  = 64
	segmentBits = 12
	segmentSize = 1 << segmentBits
)

type poolShard struct {
	mu     sync.Mutex
	byHash map[uint64]uint32 // first id with that hash
	more   map[string]uint32 // the rare second blob with an equal hash
	_      [40]byte          // keeps two shards' locks off one cache line
}

type poolEntry struct {
	blob []byte
	hash uint64
}

type poolSegment [segmentSize]poolEntry

func newPool() *pool {
	p := &pool{}
	for i := range p.shards {
		p.shards[i].byHash = make(map[uint64]uint32)
	}
	p.dir.Store(&[]*poolSegment{})
	return p
}

// entry returns the bytes and hash of id, which intern returned (on any goroutine that
// happens-before the caller: a State passed over a channel carries that).
func (p *pool) entry(id uint32) *poolEntry {
	return &(*p.dir.Load())[id>>segmentBits][id&(segmentSize-1)]
}

// blob returns the encoding of id.
func (p *pool) blob(id uint32) []byte { return p.entry(id).blob }

// hash returns the hash of id's encoding.
func (p *pool) hash(id uint32) uint64 { return p.entry(id).hash }

// intern returns the id of b, storing a copy when it is new.
func (p *pool) intern(b []byte) uint32 { return p.internHashed(b, xxhash.Sum64(b)) }

// internHashed is intern for b whose hash is h.
func (p *pool) internHashed(b []byte, h uint64) uint32 {
	sh := &p.shards[h%poolShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if id, ok := sh.byHash[h]; ok {
		if bytes.Equal(p.blob(id), b) {
			return id
		}
		if id, ok := sh.more[string(b)]; ok {
			return id
		}
		if sh.more == nil {
			sh.more = make(map[string]uint32)
		}
		id := p.add(b, h)
		sh.more[string(b)] = id
		return id
	}
	id := p.add(b, h)
	sh.byHash[h] = id
	return id
}

// add stores a copy of b under a new id; the caller holds b's shard lock.
func (p *pool) add(b []byte, h uint64) uint32 {
	id := p.n.Add(1) - 1
	seg := int(id >> segmentBits)
	dir := *p.dir.Load()
	if seg >= len(dir) || dir[seg] == nil {
		dir = p.addSegment(seg)
	}
	dir[seg][id&(segmentSize-1)] = poolEntry{blob: bytes.Clone(b), hash: h}
	p.bytes.Add(int64(len(b)))
	return id
}

// addSegment makes sure segment seg exists and returns the directory holding it. The directory is
// copied, never changed in place, so entry reads an old one safely.
func (p *pool) addSegment(seg int) []*poolSegment {
	p.grow.Lock()
	defer p.grow.Unlock()
	dir := *p.dir.Load()
	if seg < len(dir) && dir[seg] != nil {
		return dir
	}
	next := make([]*poolSegment, max(seg+1, len(dir), 2*seg))
	copy(next, dir)
	next[seg] = new(poolSegment)
	p.dir.Store(&next)
	return next
}

// size returns the total size of the interned encodings.
func (p *pool) size() int { return int(p.bytes.Load()) }

// A recent is one machine's direct-mapped memory of the ids it interned lately, in front of a
// shared pool: a component most transitions leave as it was, or that many states share, is found
// without taking a shard lock that the other workers' machines take too. An entry holds the
// encoding itself (the pool's copy, which never changes), so that a hit reads no pool entry.
type recent [1 << 12]struct {
	hash uint64
	blob string // "" for an empty entry: no encoding is empty
	id   uint32
}

// intern is pool.intern, answered from r when it can be.
func (r *recent) intern(p *pool, b []byte) uint32 {
	h := xxhash.Sum64(b)
	e := &r[h&(uint64(len(r))-1)]
	if e.hash == h && e.blob == string(b) && e.blob != "" {
		return e.id
	}
	id := p.internHashed(b, h)
	kept := p.blob(id)
	e.hash, e.id, e.blob = h, id, unsafe.String(unsafe.SliceData(kept), len(kept))
	return id
}
