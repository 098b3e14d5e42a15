package engine

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
)

type light struct {
	Color string
	N     int
}

// A capture that finds a root alone holding a value it encoded before takes that value's id
// without encoding; a value at other addresses (the same text built anew) is encoded, to the same
// id; a component whose values do not come back stops being compared.
func TestCaptureKnowsValuesItMet(t *testing.T) {
	l := &light{Color: "red"}
	var color string
	m := cmc.NewModel("light")
	p := m.Process("l", l)
	p.On("paint", func() { l.Color = color })
	p.On("count", func() { l.N++ })
	mc, s0, err := NewMachine(m)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	paint, count := mc.Def.Events[0], mc.Def.Events[1]
	step := func(from State, ev *cmc.Event) State {
		t.Helper()
		if err := mc.Load(from); err != nil {
			t.Fatal(err)
		}
		if out := mc.Run(ev, nil, false, nil); out.Failure != nil {
			t.Fatal(out.Failure.Message)
		}
		next, err := mc.Capture(from, ev.Touches)
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	c := &mc.caught[0]
	color = "green"
	green := step(s0, paint)
	color = "red"
	red := step(green, paint)
	if red[0] != s0[0] {
		t.Fatalf("red again: id %d, want %d", red[0], s0[0])
	}
	hits := c.hits
	color = "green"
	if again := step(red, paint); again[0] != green[0] || c.hits != hits+1 {
		t.Errorf("green again: id %d and %d hits, want id %d from the kept value (%d hits)", again[0], c.hits, green[0], hits+1)
	}
	color = strings.Repeat("gr", 1) + "een" // the same text at another address
	hits = c.hits
	if built := step(red, paint); built[0] != green[0] || c.hits != hits {
		t.Errorf("green built: id %d and %d hits, want id %d, encoded (%d hits)", built[0], c.hits, green[0], hits)
	}
	s := s0
	for range 200 {
		s = step(s, count)
	}
	if !c.off || c.n != 0 {
		t.Errorf("after 200 new values: off %v with %d kept, want off with none", c.off, c.n)
	}
	if err := mc.Load(s); err != nil {
		t.Fatal(err)
	}
	if l.N != 200 || l.Color != "red" {
		t.Errorf("state after 200 counts holds %+v, want N 200, red", *l)
	}
}

type note struct {
	From string
	N    int
}

type inbox struct {
	Notes []note `cmc:"set"`
	Log   []int  // a plain slice: its capacity is state
	Count int
}

// A capture finds a value by the memory the run started from, as the handler left it: the same
// note added to the same set again takes the id it got before, without encoding; a different
// note is encoded. Along a random walk every capture's bytes are those a fresh encoding of the
// live value gives, and every Load restores a value that encodes to its state's bytes, whichever
// way the capture found it. A component whose values do not come back, that holds a map, or whose
// value covers more than afterBytes, stops being looked up.
func TestCaptureKnowsValuesByTheMemoryTheyWereMadeIn(t *testing.T) {
	box := &inbox{}
	var from string
	var n int
	m := cmc.NewModel("inbox")
	p := m.Process("box", box)
	p.On("post", func() {
		if !slices.Contains(box.Notes, note{from, n}) {
			box.Notes = append(box.Notes, note{from, n})
		}
	})
	p.On("log", func() { box.Log = append(box.Log, n) })
	p.On("clear", func() { box.Notes = box.Notes[:0] }) // old notes stay in the spare capacity
	p.On("count", func() { box.Count++ })
	mc, s0, err := NewMachine(m)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close() // as well as below: Close may be called again
	var fresh canon.Encoder
	var dec canon.Decoder
	encodes := func(what string, s State) {
		t.Helper()
		b, err := fresh.EncodeValue(nil, reflect.ValueOf(box), "box")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, mc.Bytes(s, 0)) {
			t.Fatalf("%s: the live value encodes to %x, its state's bytes are %x", what, b, mc.Bytes(s, 0))
		}
	}
	load := func(s State) { // and check it holds just what decoding s's bytes gives: its set in order too
		t.Helper()
		if err := mc.Load(s); err != nil {
			t.Fatal(err)
		}
		want := &inbox{}
		if err := dec.DecodeValue(mc.Bytes(s, 0), reflect.ValueOf(want)); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(box, want) {
			t.Fatalf("loaded %+v, decoding gives %+v", *box, *want)
		}
	}
	step := func(s State, ev int) State {
		t.Helper()
		load(s)
		encodes("loaded", s)
		e := mc.Def.Events[ev]
		if out := mc.Run(e, nil, false, nil); out.Failure != nil {
			t.Fatal(out.Failure.Message)
		}
		next, err := mc.Capture(s, e.Touches)
		if err != nil {
			t.Fatal(err)
		}
		encodes("captured after "+e.Name, next)
		load(next)
		return next
	}
	a := &mc.caught[0].after
	from, n = "a", 1
	one := step(s0, 0)
	n = 2
	two := step(one, 0) // from the handler's value, which append moves to a new array
	step(one, 0)        // from one decoded, whose set has room: the note goes in place
	hits := a.hits
	if again := step(one, 0); again[0] != two[0] || a.hits != hits+1 {
		t.Errorf("the same note again: id %d and %d hits, want id %d found (%d hits)", again[0], a.hits, two[0], hits+1)
	}
	from = "b"
	if other := step(one, 0); other[0] == two[0] || a.hits != hits+1 {
		t.Errorf("another note: id %d and %d hits, want an id other than %d, encoded (%d hits)", other[0], a.hits, two[0], hits+1)
	}

	seed := uint64(20261129)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	states := []State{s0, one, two}
	for range 500 {
		// Every note from one of a few states, as a search runs every event of a state, and
		// comes back to states whose values it met before; now and then a clear or a log.
		s := states[rng.IntN(min(len(states), 12))]
		for _, f := range []string{"a", "b"} {
			for k := range 3 {
				from, n = f, k
				states = append(states, step(s, 0))
			}
		}
		states = append(states, step(s, 1+rng.IntN(2)))
	}
	if a.hits < 500 || a.off {
		t.Errorf("random walk: %d hits, off %v; want 500 values or more found by their memory", a.hits, a.off)
	}
	// Counts are new values every time: once they outnumber the values found four to one, the
	// table goes.
	s, steps := s0, 4*a.hits-a.misses+8
	for range steps {
		s = step(s, 3)
	}
	if !a.off || a.table != nil {
		t.Errorf("%d counts: off %v, table kept %v; want off, with no table", steps, a.off, a.table != nil)
	}
	mc.Close() // one machine at a time holds the lock on running model code

	// afterTwice runs the only event of a one-process model twice from its initial state and
	// returns its component's after table.
	afterTwice := func(m *cmc.Model) *after {
		t.Helper()
		mc, s0, err := NewMachine(m)
		if err != nil {
			t.Fatal(err)
		}
		defer mc.Close()
		ev := mc.Def.Events[0]
		for range 2 {
			if err := mc.Load(s0); err != nil {
				t.Fatal(err)
			}
			mc.Run(ev, nil, false, nil)
			if _, err := mc.Capture(s0, ev.Touches); err != nil {
				t.Fatal(err)
			}
		}
		return &mc.caught[0].after
	}
	withMap := &struct{ M map[string]int }{M: map[string]int{}}
	mm := cmc.NewModel("map")
	mm.Process("m", withMap).On("add", func() { withMap.M["k"]++ })
	if a := afterTwice(mm); !a.off || a.misses != 0 {
		t.Errorf("a value with a map: off %v after %d misses, want off at once", a.off, a.misses)
	}
	// A value of more than afterBytes: a table of them would hold a thousand copies.
	big := &struct{ Vals []int }{Vals: make([]int, 100)}
	mb := cmc.NewModel("big")
	mb.Process("b", big).On("inc", func() { big.Vals[0]++ })
	if a := afterTwice(mb); !a.off || a.table != nil || a.misses != 1 {
		t.Errorf("a value of 824 bytes: off %v after %d misses, table kept %v; want off after one, with no table", a.off, a.misses, a.table != nil)
	}
}
