package engine

import (
	"maps"
	"testing"

	"github.com/cmc-go/cmc"
)

type kept struct {
	P *int
	M map[int]int
}

// A state loaded again after another was decoded gets back the objects decoded for it (its kept
// footprint), not new ones, and as decoding would give them: what a handler wrote to them in place
// since is undone, map entries included.
func TestLoadRestoresKeptValues(t *testing.T) {
	k := &kept{P: new(int), M: map[int]int{}}
	m := cmc.NewModel("kept")
	m.Process("k", k).On("inc", func() { *k.P++; k.M[*k.P] = 1 })
	mc, s0, err := NewMachine(m)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	ev := mc.Def.Events[0]
	load := func(s State) {
		t.Helper()
		if err := mc.Load(s); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, p *int, v int, entries map[int]int) {
		t.Helper()
		if k.P != p || *k.P != v || !maps.Equal(k.M, entries) {
			t.Errorf("%s: P %p = %d, M %v; want P %p = %d, M %v", what, k.P, *k.P, k.M, p, v, entries)
		}
	}
	if out := mc.Run(ev, nil, false, nil); out.Failure != nil {
		t.Fatal(out.Failure.Message)
	}
	s1, err := mc.Capture(s0, ev.Touches)
	if err != nil {
		t.Fatal(err)
	}
	load(s0) // decoded
	p0 := k.P
	want("s0 decoded", p0, 0, map[int]int{})
	load(s1) // decoded: s0's objects are kept
	p1 := k.P
	want("s1 decoded", p1, 1, map[int]int{1: 1})
	load(s0)
	want("s0 again", p0, 0, map[int]int{})
	mc.Run(ev, nil, false, nil) // writes s0's objects in place
	load(s1)
	want("s1 again", p1, 1, map[int]int{1: 1})
	load(s0)
	want("s0 after a write in place", p0, 0, map[int]int{})
}
