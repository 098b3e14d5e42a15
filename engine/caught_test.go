package engine

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
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
