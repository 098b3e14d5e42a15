package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/cmc-go/cmc"
)

// Entries read back as added across chunk boundaries, growing never copies a full chunk, and full
// chunks after the first go to a file: memory holds the first chunk and the one being filled.
func TestChunked(t *testing.T) {
	var c chunked[trailEntry]
	const n = 5*chunkLen + 5
	var first *trailEntry
	for i := range n {
		c.add(trailEntry{parent: int32(i), event: int32(i % 7), off: uint32(3 * i), n: 2})
		if i == chunkLen {
			first = &c.chunks[0][0]
		}
	}
	if &c.chunks[0][0] != first {
		t.Error("the first chunk moved after it was full")
	}
	if c.len() != n || len(c.chunks) != 6 {
		t.Fatalf("len %d in %d chunks, want %d in 6", c.len(), len(c.chunks), n)
	}
	if c.file == nil {
		t.Fatal("no full chunk went to a file")
	}
	if got := c.capacity(); got > 3*chunkLen {
		t.Errorf("%d entries in memory, want at most 3 chunks (%d)", got, 3*chunkLen)
	}
	if got, want := c.spilled(), int64(4*chunkLen*16); got != want {
		t.Errorf("spilled %d bytes, want %d", got, want)
	}
	for _, i := range []int{0, 1, chunkLen - 1, chunkLen, 2*chunkLen + 7, 4*chunkLen + 3, n - 1} {
		want := trailEntry{parent: int32(i), event: int32(i % 7), off: uint32(3 * i), n: 2}
		if got := c.at(i); got != want {
			t.Errorf("at(%d) = %+v, want %+v", i, got, want)
		}
	}
	if c.err != nil {
		t.Fatal(c.err)
	}
	i := 0
	err := c.each(func(got trailEntry) {
		if want := (trailEntry{parent: int32(i), event: int32(i % 7), off: uint32(3 * i), n: 2}); got != want && !t.Failed() {
			t.Errorf("each: entry %d is %+v, want %+v", i, got, want)
		}
		i++
	})
	if err != nil || i != n {
		t.Errorf("each: %d entries, %v; want %d", i, err, n)
	}
	f := c.file
	if _, err := os.Stat(f.Name()); runtime.GOOS != "windows" && !os.IsNotExist(err) {
		t.Errorf("the trail file %s has a name: a killed search would leave it behind (%v)", f.Name(), err)
	}
	c.free()
	if c.len() != 0 || c.file != nil {
		t.Errorf("len %d, file %v after free", c.len(), c.file)
	}
	if _, err := f.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the trail file is still open after free: %v", err)
	}
	freeOffHeap(make([]int32, 8)) // a slice from make is left to the garbage collector
}

// Without a usable temporary directory, full chunks stay in memory and the list still works.
func TestChunkedWithoutFile(t *testing.T) {
	t.Setenv("TMPDIR", "/nonexistent/cmc-no-such-dir")
	var c chunked[int32]
	const n = 3*chunkLen + 1
	for i := range n {
		c.add(int32(i))
	}
	defer c.free()
	if c.file != nil || c.spilled() != 0 {
		t.Fatalf("spilled %d bytes to %v without a temporary directory", c.spilled(), c.file)
	}
	for _, i := range []int{0, chunkLen + 1, n - 1} {
		if got := c.at(i); got != int32(i) {
			t.Errorf("at(%d) = %d", i, got)
		}
	}
}

// A search larger than a few trail chunks rebuilds its counterexample from the trail file: a
// counter that adds 1 or 2 reaches its bad value after 200,000 states; the trace found must add
// up to it, one Choose value a step.
func TestCounterexampleFromSpilledTrail(t *testing.T) {
	const bad = 3*chunkLen + 3
	c := &counter{}
	m := cmc.NewModel("long counter")
	m.Process("c", c).On("add", func() { c.X += 1 + cmc.Choose(2) }, cmc.When(func() bool { return c.X < bad+2 }))
	m.Invariant("not bad", func() error {
		if c.X == bad {
			return fmt.Errorf("X is %d", c.X)
		}
		return nil
	})
	res, err := Check(context.Background(), m, Options{Search: "bfs", SelfCheck: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) != 1 || res.SpilledBytes == 0 {
		t.Fatalf("%d violations, %d bytes of trail spilled; want 1 from a spilled trail", len(res.Violations), res.SpilledBytes)
	}
	x := 0
	for _, st := range res.Violations[0].Steps {
		if len(st.Choices) != 1 {
			t.Fatalf("step %+v has %d Choose values, want 1", st, len(st.Choices))
		}
		x += 1 + st.Choices[0].Value
	}
	if x != bad || len(res.Violations[0].Steps) != (bad+1)/2 {
		t.Errorf("the trace's %d steps add up to %d, want %d steps to %d", len(res.Violations[0].Steps), x, (bad+1)/2, bad)
	}
}
