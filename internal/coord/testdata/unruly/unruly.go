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
	"syscall"

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
	cmc.Register("Hoard", model("Hoard", func(n int) {
		for range 1 << 10 { // 1 GiB, kept
			hoard = append(hoard, make([]byte, 1<<20))
		}
	}))
}
