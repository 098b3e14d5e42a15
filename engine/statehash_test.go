package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestStateHashWays: a state's hash is the same whichever way it is computed: from scratch, from
// the last state hashed (hash), from a parent and the components its event touches (child), or
// from the components' encodings' hashes (stateHash, for states that arrive as bytes). The states
// are random walks over a few values per component, so components go back and forth as a search's
// successors do.
func TestStateHashWays(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	p := newPool()
	const k, values = 7, 5
	ids := make([][]uint32, k) // ids[i][v]: component i's value v
	for i := range ids {
		for v := range values {
			ids[i] = append(ids[i], p.intern(fmt.Appendf(nil, "component %d value %d", i, v)))
		}
	}
	random := func() State {
		s := make(State, k)
		for i := range s {
			s[i] = ids[i][rng.IntN(values)]
		}
		return s
	}
	scratch := func(s State) uint64 {
		hs := make([]uint64, len(s))
		for i, id := range s {
			hs[i] = p.hash(id)
		}
		return stateHash(hs)
	}
	var sh, other stateHasher
	parent := random()
	for range 2000 {
		if rng.IntN(4) == 0 {
			parent = random()
		}
		sh.from(parent, p)
		if got, want := other.hash(parent, p), scratch(parent); got != want {
			t.Fatalf("hash(%v) = %x, from scratch %x", parent, got, want)
		}
		for range 1 + rng.IntN(6) {
			var touched []int
			next := append(State(nil), parent...)
			for i := range k {
				if rng.IntN(3) == 0 {
					touched = append(touched, i)
					next[i] = ids[i][rng.IntN(values)]
				}
			}
			want := scratch(next)
			if got := sh.child(next, touched, p); got != want {
				t.Fatalf("child(%v) of %v touching %v = %x, from scratch %x", next, parent, touched, got, want)
			}
			if got := other.hash(next, p); got != want {
				t.Fatalf("hash(%v) = %x, from scratch %x", next, got, want)
			}
		}
	}
}
