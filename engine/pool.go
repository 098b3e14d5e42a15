package engine

import (
	"bytes"

	"github.com/cespare/xxhash/v2"
)

// A pool interns components' canonical encodings, so a state is a short list of ids and the many
// states that share a component's value share its bytes (the thesis's state compression).
type pool struct {
	blobs  [][]byte
	hashes []uint64
	byHash map[uint64]uint32 // first id with that hash
	more   map[string]uint32 // the rare second blob with an equal hash
}

func newPool() *pool {
	return &pool{byHash: make(map[uint64]uint32)}
}

// intern returns the id of b, storing a copy when it is new.
func (p *pool) intern(b []byte) uint32 {
	h := xxhash.Sum64(b)
	if id, ok := p.byHash[h]; ok {
		if bytes.Equal(p.blobs[id], b) {
			return id
		}
		if id, ok := p.more[string(b)]; ok {
			return id
		}
		if p.more == nil {
			p.more = make(map[string]uint32)
		}
		id := p.add(b, h)
		p.more[string(b)] = id
		return id
	}
	id := p.add(b, h)
	p.byHash[h] = id
	return id
}

func (p *pool) add(b []byte, h uint64) uint32 {
	id := uint32(len(p.blobs))
	p.blobs = append(p.blobs, bytes.Clone(b))
	p.hashes = append(p.hashes, h)
	return id
}

// bytes returns the total size of the interned encodings.
func (p *pool) size() int {
	n := 0
	for _, b := range p.blobs {
		n += len(b)
	}
	return n
}
