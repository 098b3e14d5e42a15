package engine

import (
	"maps"
	"strings"
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

type noted struct {
	P    *int
	Note string
}

// A component of keepMoreFrom bytes or more keeps keepDecodedLarge values decoded before the live
// one, a smaller one keepDecoded: the oldest value still kept comes back with its own objects, the
// one before it is decoded anew.
func TestLargeComponentsKeepMoreValues(t *testing.T) {
	for _, c := range []struct {
		note string
		kept int
	}{{"", keepDecoded}, {strings.Repeat("x", keepMoreFrom), keepDecodedLarge}} {
		v := &noted{P: new(int), Note: c.note}
		m := cmc.NewModel("noted")
		m.Process("v", v).On("inc", func() { *v.P++ })
		mc, s, err := NewMachine(m)
		if err != nil {
			t.Fatal(err)
		}
		load := func(s State) {
			t.Helper()
			if err := mc.Load(s); err != nil {
				t.Fatal(err)
			}
		}
		ev := mc.Def.Events[0]
		states := []State{s}
		for len(states) < keepDecodedLarge+2 {
			load(states[len(states)-1])
			mc.Run(ev, nil, false, nil)
			next, err := mc.Capture(states[len(states)-1], ev.Touches)
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, next)
		}
		objects := make([]*int, len(states))
		for i, st := range states {
			load(st)
			objects[i] = v.P
		}
		n := len(states)
		if got := len(mc.older[0].values); got != c.kept {
			t.Errorf("note of %d bytes: %d values kept, want %d", len(c.note), got, c.kept)
		}
		oldest, gone := n-1-c.kept, n-2-c.kept
		load(states[oldest])
		if v.P != objects[oldest] || *v.P != oldest {
			t.Errorf("note of %d bytes: the oldest value kept (%d) was not restored from its objects", len(c.note), oldest)
		}
		load(states[gone])
		if v.P == objects[gone] || *v.P != gone {
			t.Errorf("note of %d bytes: the value before the oldest kept (%d): P %p = %d, want new objects holding %d", len(c.note), gone, v.P, *v.P, gone)
		}
		mc.Close()
	}
}
