package engine

import "github.com/cmc-go/cmc/canon"

// A state's hash is a sum, one term per component: the component's hash (of its canonical bytes)
// mixed with its position, plus a term for the format version. A sum, not a hash of the list of
// component hashes, so that a state's hash follows from another's by the components in which they
// differ: a transition changes one or two of a state's components, and the states a machine
// hashes one after another are a state's successors. Each term is a strong 64-bit mix of an
// already random value, so the sum is as good a fingerprint as hashing the list (two states that
// differ collide only if the differing terms cancel, as likely as two random values being equal).
// Zobrist's hashing of board positions is the same idea.

// stateHasher is Hash's memory of the last state it was given, and of what each component held
// before: the successors of a state each change a component or two and leave the rest as the
// state has them, so a component goes back and forth between its value in the state and another,
// and its term is found here instead of in the pool (whose entry for a value seen a while ago is a
// miss to memory). A search hashes a state's successors from the state itself (from, child):
// a successor's hash is the state's with the terms of the components its event touches replaced,
// without comparing the others.
type stateHasher struct {
	ids   []uint32 // the state
	terms []uint64 // each component's term
	sum   uint64
	prev  []heldTerm // what each component held before
	// parent is the state whose successors child hashes: its components, terms and hash.
	parent      []uint32
	parentTerms []uint64
	parentSum   uint64
}

type heldTerm struct {
	id   uint32
	term uint64
}

// stateSeed is the version's term: hashes stored by another format never match.
var stateSeed = hashTerm(-1, uint64(canon.Version))

// hashTerm is component i's share of a state's hash when its encoding's hash is h.
func hashTerm(i int, h uint64) uint64 {
	h += uint64(i+2) * 0x9e3779b97f4a7c15
	h ^= h >> 33
	h *= 0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	h *= 0x165667b19e3779f9
	h ^= h >> 32
	return h
}

// hash returns the hash of s, whose components p interned, rehashing only the components in which
// s differs from the last state hashed.
func (sh *stateHasher) hash(s State, p *pool) uint64 {
	if len(sh.ids) != len(s) {
		sh.ids, sh.terms, sh.sum = padded[uint32](len(s)), padded[uint64](len(s)), stateSeed
		sh.prev = padded[heldTerm](len(s))
		sh.parent, sh.parentTerms = padded[uint32](len(s))[:0], padded[uint64](len(s))[:0]
		for i, id := range s {
			sh.ids[i], sh.terms[i] = id, hashTerm(i, p.hash(id))
			sh.sum += sh.terms[i]
		}
		return sh.sum
	}
	ids, terms, prev := sh.ids[:len(s)], sh.terms[:len(s)], sh.prev[:len(s)]
	for i, id := range s {
		if ids[i] == id {
			continue
		}
		var t uint64
		if prev[i].id == id && prev[i].term != 0 {
			t = prev[i].term
		} else {
			t = hashTerm(i, p.hash(id))
		}
		prev[i] = heldTerm{ids[i], terms[i]}
		sh.sum += t - terms[i]
		ids[i], terms[i] = id, t
	}
	return sh.sum
}

// from makes s the state whose successors child hashes; p interned its components.
func (sh *stateHasher) from(s State, p *pool) {
	sh.parentSum = sh.hash(s, p)
	sh.parent = append(sh.parent[:0], sh.ids...)
	sh.parentTerms = append(sh.parentTerms[:0], sh.terms...)
}

// child returns the hash of s, a successor of the state given to from by an event that may have
// changed the components in touched and no others.
func (sh *stateHasher) child(s State, touched []int, p *pool) uint64 {
	sum := sh.parentSum
	prev := sh.prev[:len(s)]
	for _, i := range touched {
		id := s[i]
		if id == sh.parent[i] {
			continue
		}
		if prev[i].id != id || prev[i].term == 0 {
			prev[i] = heldTerm{id, hashTerm(i, p.hash(id))}
		}
		sum += prev[i].term - sh.parentTerms[i]
	}
	return sum
}

// stateHash is the hash of a state whose components' encodings hash to hs, as a stateHasher
// computes it (for states that arrive as bytes, before they are interned).
func stateHash(hs []uint64) uint64 {
	sum := stateSeed
	for i, h := range hs {
		sum += hashTerm(i, h)
	}
	return sum
}
