package worker

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/stackdump"
	"github.com/cmc-go/cmc/internal/transition"
)

// DefaultMemory is the worker's memory limit when the request names none.
const DefaultMemory = 4 << 30

// setMemory sets the live heap the worker may hold (0: DefaultMemory). The Go runtime collects
// harder as the heap nears it; the watchdog ends the worker when live data exceeds it anyway.
func (w *server) setMemory(bytes int64) {
	if bytes <= 0 {
		bytes = DefaultMemory
	}
	w.memory.Store(bytes)
	debug.SetMemoryLimit(bytes)
}

// watchdog reports a call into user code (a handler, an enabling condition, an invariant, a
// model's builder) that takes longer than the deadline, or live memory above the limit, in a
// check or a replay, then exits: Go cannot stop a goroutine, and the coordinator will trace the
// transition in a fresh worker. Each machine's transition.Slot counts its calls into user code
// (odd while one runs, changed by every call; the workers of a parallel search run at once, each
// in its own), so time spent in the engine, in decoding a long trace or in waiting for requests
// never counts as a hang.
func (w *server) watchdog() {
	type watch struct {
		calls uintptr
		since time.Time
	}
	seen := map[*transition.Slot]watch{}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	gc := newGCTuner()
	// Memory is read often: a handler can allocate gigabytes in a second.
	for range time.Tick(20 * time.Millisecond) {
		slots := transition.Slots()
		metrics.Read(live)
		gc.tune(live[0].Value.Uint64())
		if heap := int64(live[0].Value.Uint64()); heap > w.memory.Load() {
			w.overMemory(slices.ContainsFunc(slots, func(s *transition.Slot) bool { return s.Calls()%2 == 1 }), heap)
		}
		now := time.Now()
		for _, s := range slots {
			n := s.Calls()
			if n%2 == 0 {
				delete(seen, s)
				continue
			}
			if was, ok := seen[s]; !ok || was.calls != n {
				seen[s] = watch{n, now}
				continue
			}
			if d := time.Duration(w.deadline.Load()); now.Sub(seen[s].since) > d {
				w.hung(s, d)
			}
		}
		for s := range seen {
			if !slices.Contains(slots, s) {
				delete(seen, s) // released
			}
		}
	}
}

// hung reports the call into user code on slot s that has run for longer than d, saying where the
// model's code is and whether it waits on a channel or a lock or is computing, and exits.
func (w *server) hung(s *transition.Slot, d time.Duration) {
	what := "the handler"
	if name := building.Load(); name != nil {
		what = "the builder of model " + *name
	}
	where := "still running (an infinite loop?)"
	g := s.Goroutine()
	if g == 0 {
		g = w.serving.Load()
	}
	if g := stackdump.Find(stackdump.Parse(stackdump.All()), g); g != nil {
		state := g.Blocked()
		if state == "running" {
			state = "still running (an infinite loop?)"
		}
		where = state
		if at := g.Where(3); at != "" {
			where += " " + at
		}
	}
	c := &Crash{Kind: "hang", Message: fmt.Sprintf("%s did not return within %s: %s", what, d, where)}
	if state, event, attempt, ok := s.Run(); ok && w.pos.active() && building.Load() == nil {
		c.Position = engine.Position{State: state, Event: event, Attempt: attempt}
		w.reply(Reply{Crash: c})
		os.Exit(3)
	}
	w.fatal(c)
}

// overMemory reports live memory above the limit, in a transition when user code is running,
// else as the search's own, and exits.
func (w *server) overMemory(userCode bool, heap int64) {
	limit := w.memory.Load()
	c := &Crash{Kind: "crash", Message: fmt.Sprintf("memory limit %s exceeded: %s live while the handler ran", Bytes(limit), Bytes(heap))}
	if name := building.Load(); name != nil {
		c.Message = fmt.Sprintf("memory limit %s exceeded: %s live while the builder of model %s ran", Bytes(limit), Bytes(heap), *name)
	} else if !userCode {
		c.Message = fmt.Sprintf("memory limit %s exceeded: %s live in the search itself (its visited states and queue); bound it with -depth or -states, or raise -memory", Bytes(limit), Bytes(heap))
		c.NoTrace = true
	}
	w.fatal(c)
}

// fatal sends c and exits; the position file says which transition was running, or that the
// workers of a parallel search were running several.
func (w *server) fatal(c *Crash) {
	switch {
	case building.Load() != nil:
		c.NoTrace = true
	case w.pos.running():
		c.Position, _ = w.pos.get()
	case w.pos.concurrent():
		c.Concurrent = true
	default:
		c.NoTrace = true
	}
	w.reply(Reply{Crash: c})
	os.Exit(3)
}

// Bytes renders a byte count in binary units: 4 GiB, 512 MiB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
