// Package unruly holds models whose code does what checkable code must not (see
// docs/checkable-code.md): print, leave goroutines running, call runtime.Goexit, close os.Stdout,
// block, loop while building, hoard memory. The coordinator must turn each into output shown to
// the user, a finding or an error, and never hang or misread a reply.
package unruly

import (
	"fmt"
	"log"
	"log/slog"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cmc-go/cmc"
)

type state struct{ N int }

// model has a process p with events inc (while N < 3) and bad, which calls bad(N) when N is 2.
func model(name string, bad func(n int)) cmc.Builder {
	return func(p *cmc.Params) *cmc.Model {
		s := &state{}
		m := cmc.NewModel(name)
		m.Process("p", s).
			On("inc", func() { s.N++ }, cmc.When(func() bool { return s.N < 3 })).
			On("bad", func() {
				if s.N == 2 {
					bad(s.N)
				}
			})
		return m
	}
}

// wide is model with a second process q that first takes one of 100 values, so its breadth-first
// levels are wide enough for a parallel search's workers (engine/parallel.go); p.bad calls bad in
// every state.
func wide(name string, bad func(p, q *state)) cmc.Builder {
	return func(p *cmc.Params) *cmc.Model {
		s, q := &state{}, &state{N: -1}
		m := cmc.NewModel(name)
		m.Process("q", q).On("set", func() { q.N = cmc.Choose(100) }, cmc.When(func() bool { return q.N < 0 }))
		m.Process("p", s).
			On("inc", func() { s.N++ }, cmc.When(func() bool { return s.N < 3 })).
			On("bad", func() { bad(s, q) })
		return m
	}
}

// at57 is whether p is at 2 and q took 57.
func at57(p, q *state) bool { return p.N == 2 && q.N == 57 }

// racing counts the handler runs of Racy under way; spins, the ones that waited for another.
var racing, spins atomic.Int32

var never = make(chan int)

var hoard [][]byte

func init() {
	cmc.Register("Print", model("Print", func(n int) {
		fmt.Println("fmt says", n)
		log.Print("log says ", n)
		slog.Info("slog says", "n", n)
		fmt.Fprintln(os.Stderr, "stderr says", n)
		// Lines that look like replies must stay output.
		fmt.Println(`{"done":true}`)
		fmt.Println(`{"done":true,"result":{"complete":true}}`)
	}))
	cmc.Register("Chatty", model("Chatty", func(n int) {
		for i := range 1000 {
			fmt.Println("line", i)
		}
	}))
	cmc.Register("Goexit", model("Goexit", func(int) { runtime.Goexit() }))
	cmc.Register("CloseStdout", model("CloseStdout", func(int) {
		os.Stdout.Close()
		fmt.Println("into a closed stdout")
	}))
	cmc.Register("LoopBuilder", func(p *cmc.Params) *cmc.Model {
		for n := 0; ; n++ {
			if n < 0 {
				return nil
			}
		}
	})
	cmc.Register("Block", model("Block", func(n int) {
		<-never // blocks forever
	}))
	cmc.Register("Leak", model("Leak", func(n int) {
		go func() { <-never }()
	}))
	cmc.Register("Killed", model("Killed", func(int) { syscall.Kill(os.Getpid(), syscall.SIGKILL) }))
	cmc.Register("WideKilled", wide("WideKilled", func(p, q *state) {
		if at57(p, q) {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}))
	cmc.Register("WideBlock", wide("WideBlock", func(p, q *state) {
		if at57(p, q) {
			<-never // blocks forever, on a parallel search worker's goroutine
		}
	}))
	// Racy's handler kills the process when another instance's handler runs at the same time, as
	// code that keeps unsynchronised package-level state may crash ("concurrent map writes"):
	// the first three runs wait up to 100 ms for company, which only a parallel search gives.
	cmc.Register("Racy", wide("Racy", func(p, q *state) {
		racing.Add(1)
		defer racing.Add(-1)
		if q.N < 0 || spins.Add(1) > 3 {
			return
		}
		for range 100 {
			if racing.Load() > 1 {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
			time.Sleep(time.Millisecond)
		}
	}))
	cmc.Register("Hoard", model("Hoard", func(n int) {
		for range 1 << 10 { // 1 GiB, kept, over a second: the watchdog reads memory every 20 ms
			hoard = append(hoard, make([]byte, 1<<20))
			time.Sleep(time.Millisecond)
		}
	}))
}
