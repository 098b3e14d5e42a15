package stackdump

import (
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestBlockedGoroutines dumps this process while two goroutines it started wait on a channel
// and on a mutex, and checks the dump says so, with the lines where they wait and were created.
func TestBlockedGoroutines(t *testing.T) {
	ch := make(chan int)
	var mu sync.Mutex
	mu.Lock()
	var started sync.WaitGroup
	started.Add(2)
	go func() { started.Done(); <-ch }()                   // line 18
	go func() { started.Done(); mu.Lock(); mu.Unlock() }() // line 19
	started.Wait()
	defer func() { mu.Unlock(); close(ch) }()
	me := Current()
	var chanG, mutexG *Goroutine
	for range 100 { // wait until both goroutines are parked
		runtime.Gosched()
		gs := Parse(All())
		chanG, mutexG = nil, nil
		for i := range gs {
			g := &gs[i]
			if g.Creator != me || g.CreatedBy == nil || !strings.HasSuffix(g.CreatedBy.File, "stackdump_test.go") {
				continue
			}
			switch g.CreatedBy.Line {
			case 18:
				chanG = g
			case 19:
				mutexG = g
			}
		}
		if chanG != nil && mutexG != nil && chanG.Wait != "runnable" && mutexG.Wait != "runnable" && mutexG.Wait != "running" {
			break
		}
	}
	if chanG == nil || mutexG == nil {
		t.Fatalf("dump has no goroutines created at lines 18 and 19 by goroutine %d", me)
	}
	if got := chanG.Blocked(); got != "blocked on channel (chan receive)" {
		t.Errorf("channel goroutine: %q", got)
	}
	if got := mutexG.Blocked(); got != "blocked on mutex (sync.Mutex.Lock)" {
		t.Errorf("mutex goroutine: %q", got)
	}
	// This package is the checker's, not user code, so look at all frames for the waiting line.
	if f := chanG.Frames[len(chanG.Frames)-1]; f.Func != "github.com/cmc-go/cmc/internal/stackdump.TestBlockedGoroutines.func1" || f.Line != 18 {
		t.Errorf("channel goroutine's outermost frame is %s at line %d; want TestBlockedGoroutines.func1 at line 18", f.Func, f.Line)
	}
}

// TestCrashDump parses a fatal error's output: the preamble and the runtime's stack are skipped,
// the user frames are found.
func TestCrashDump(t *testing.T) {
	const crash = `runtime: goroutine stack exceeds 67108864-byte limit
fatal error: stack overflow

runtime stack:
runtime.throw({0x5a3b1e?, 0x0?})
	/usr/local/go/src/runtime/panic.go:1101 +0x48 fp=0x7ffc sp=0x7ffc pc=0x46b3c8

goroutine 1 gp=0xc000002380 m=0 mp=0x6d5ae0 [running]:
example.com/m.recurse(0x1)
	/home/u/m/m.go:28 +0x2c fp=0xc020 sp=0xc020 pc=0x4f0a0c
example.com/m.recurse(0x0)
	/home/u/m/m.go:28 +0x18 fp=0xc020 sp=0xc020 pc=0x4f0a0c
github.com/cmc-go/cmc/engine.(*Machine).Run(0xc0000)
	/home/u/cmc/engine/machine.go:185 +0x1b
`
	gs := Parse(crash)
	if len(gs) != 1 || gs[0].ID != 1 || gs[0].Wait != "running" {
		t.Fatalf("parsed %+v", gs)
	}
	if got, want := gs[0].Where(2), "at /home/u/m/m.go:28 (example.com/m.recurse), called from /home/u/m/m.go:28"; got != want {
		t.Errorf("Where = %q, want %q", got, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("goroutine 1 [running]:\nmain.main()\n\t/x.go:3 +0x1\ncreated by a.b in goroutine 9\n\t/y.go:4 +0x2\n")
	f.Add("goroutine 2 gp=0x1 [chan send, 3 minutes]:\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, g := range Parse(s) {
			g.Blocked()
			g.Where(3)
		}
	})
}

//lint:file-ignore SA2001 TestBlockedGoroutines parks a goroutine in mu.Lock on purpose; at the end so the line numbers the test checks stay put
