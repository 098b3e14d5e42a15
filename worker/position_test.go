package worker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cmc-go/cmc/engine"
)

// TestPositionFile: what the worker publishes, the coordinator reads from the file, also when the
// worker died halfway through publishing the next run (it then reads the run before).
func TestPositionFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "position")
	if err := os.WriteFile(path, make([]byte, PositionSize), 0o600); err != nil {
		t.Fatal(err)
	}
	p := openPosition(path)
	read := func() (engine.Position, bool, bool) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return ReadPosition(b)
	}
	if _, running, concurrent := read(); running || concurrent {
		t.Fatalf("a new file says running %v, concurrent %v", running, concurrent)
	}
	runs := []engine.Position{{State: 0, Event: 0, Attempt: 0}, {State: 7, Event: 3, Attempt: 2},
		{State: 1 << 40, Event: 1<<31 - 1, Attempt: 1<<31 - 1}, {State: 9, Event: 0, Attempt: 5}}
	for _, want := range runs {
		p.set(want.State, want.Event, want.Attempt)
		if got, running, _ := read(); !running || got != want {
			t.Fatalf("after set(%v) the file says %v (running %v)", want, got, running)
		}
		if got, ok := p.get(); !ok || got != want {
			t.Fatalf("after set(%v) get says %v, %v", want, got, ok)
		}
	}
	// Halfway through the next run's publishing: its half is written, the last word not yet.
	last := runs[len(runs)-1]
	p.words[2*p.half], p.words[2*p.half+1] = 99, 99
	if got, running, _ := read(); !running || got != last {
		t.Fatalf("with the next run half published the file says %v (running %v), want %v", got, running, last)
	}
	p.setConcurrent(true)
	if _, running, concurrent := read(); running || !concurrent {
		t.Fatalf("while several run the file says running %v, concurrent %v", running, concurrent)
	}
	p.setConcurrent(false)
	p.set(1, 2, 3)
	p.clear()
	if _, running, concurrent := read(); running || concurrent || p.active() {
		t.Fatalf("after clear the file says running %v, concurrent %v", running, concurrent)
	}
}

// FuzzReadPosition: any bytes decode without a panic, and a published run reads back whole.
func FuzzReadPosition(f *testing.F) {
	f.Add([]byte{}, int64(3), 4, 5)
	f.Add(make([]byte, PositionSize), int64(1)<<40, 1, 0)
	f.Fuzz(func(t *testing.T, b []byte, state int64, event, attempt int) {
		ReadPosition(b)
		p := openPosition("")
		event, attempt = int(int32(event)), int(int32(attempt))
		p.set(state, event, attempt)
		file := make([]byte, PositionSize)
		for i, w := range p.words {
			for j := range 8 {
				file[8*i+j] = byte(uint64(w) >> (8 * j))
			}
		}
		want := engine.Position{State: state, Event: event, Attempt: attempt}
		if got, running, _ := ReadPosition(file); !running || got != want {
			t.Fatalf("set(%v) reads back as %v (running %v)", want, got, running)
		}
	})
}
