// Command corelatency prints how long a cache line takes to go from one core to another: two
// threads hand a counter back and forth, each waiting to see the other's write. bench/run.sh runs
// it beside every cmc measurement, because on a virtual machine the host may run the two virtual
// CPUs on cores that share a cache or on cores that do not, and move them between the two from
// one minute to the next: here 45 ns or 205 ns a trip. A search on one core does not notice; cmc's
// depth-first search with its helper (engine/forked.go) hands each job and its records across, and
// took 2.0 s or 3.0 s on TwoPhase RM=8 as the trip took 45 or 205 ns (docs/performance.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

// line is a counter on a cache line of its own.
type line struct {
	_ [64]byte
	n atomic.Int64
	_ [56]byte
}

// trips hands c back and forth between the calling goroutine and another, each on a thread of its
// own, n times or until limit has passed (two threads that the kernel runs on one core hand over
// once a time slice), and returns the time one trip took on average.
func trips(c *line, n int64, limit time.Duration) time.Duration {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		for i := int64(1); i < 2*n; i += 2 {
			for v := c.n.Load(); v != i; v = c.n.Load() {
				if v < 0 {
					return
				}
			}
			c.n.Store(i + 1)
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	made := 2 * n
	for i := int64(0); i < 2*n; i += 2 {
		for c.n.Load() != i {
		}
		if i%4096 == 0 && i > 0 && time.Since(start) > limit {
			made = i
			break
		}
		c.n.Store(i + 1)
	}
	took := time.Since(start)
	c.n.Store(-1) // the other goroutine, if it still waits, stops
	<-done
	return took / time.Duration(made)
}

func main() {
	n := flag.Int64("n", 500_000, "round trips to make, two trips each")
	limit := flag.Duration("limit", time.Second, "stop after this long")
	flag.Parse()
	if *n < 1 || *limit <= 0 {
		fmt.Fprintln(os.Stderr, "corelatency: -n and -limit must be positive (say -n 500000 -limit 1s)")
		os.Exit(2)
	}
	if runtime.GOMAXPROCS(0) < 2 || runtime.NumCPU() < 2 {
		fmt.Println("-") // one core: nothing to measure
		return
	}
	fmt.Println(trips(new(line), *n, *limit).Nanoseconds())
}
