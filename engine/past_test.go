package engine

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
)

// A component that comes back to a value it held a few loads before gets it from that value's
// footprint (Machine.recall): the value must be exactly the one decoding gives, whatever handlers
// did meanwhile to the objects of the values in between, in place or not.
func TestRecallRestoresPastValues(t *testing.T) {
	w := &inPlace{Buf: make([]int, 1, 2), P: new(int), Pad: &scratchpad{}}
	m := cmc.NewModel("past")
	p := m.Process("w", w)
	for i := range 5 {
		p.On(fmt.Sprintf("set %d", i), func() {
			w.Buf = make([]int, i+1, i+3)
			w.Buf[i] = i
			w.P = new(int)
			*w.P = 10 * i
			w.Pad = &scratchpad{N: i}
		})
	}
	p.On("scribble", func() { // changes every object of the value in place
		w.Buf[0]++
		w.Buf = append(w.Buf, 99)
		*w.P = -1
		w.Pad.N = -1
	})
	mc, s0, err := NewMachine(m)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	run := func(s State, name string) State {
		t.Helper()
		if err := mc.Load(s); err != nil {
			t.Fatal(err)
		}
		_, ev := mc.Event("w", name)
		if out := mc.Run(ev, nil, false, nil); out.Failure != nil {
			t.Fatalf("%s: %s", name, out.Failure.Message)
		}
		next, err := mc.CaptureAll()
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	states := []State{s0}
	for i := range 5 {
		states = append(states, run(s0, fmt.Sprintf("set %d", i)))
	}
	// Visit the values in an order that recalls each from one to three loads back and drops
	// some, scribbling on each one loaded.
	for step, k := range []int{1, 2, 1, 3, 4, 2, 1, 5, 0, 3, 5, 1, 1, 4, 0, 2} {
		run(states[k], "scribble")
		if err := mc.Load(states[k]); err != nil {
			t.Fatal(err)
		}
		// Encoded afresh: the machine's own capture would trust the footprint.
		var enc canon.Encoder
		got, err := enc.Encode(nil, w)
		if err != nil {
			t.Fatal(err)
		}
		if want := mc.Bytes(states[k], 0); !bytes.Equal(got, want) {
			t.Fatalf("step %d: loading value %d gives %x, want %x", step, k, got, want)
		}
	}
}
