package worker

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/internal/stackdump"
	"github.com/cmc-go/cmc/internal/transition"
)

// building names the model whose builder (the function given to cmc.Register) is running, for
// the watchdog's report; nil otherwise.
var building atomic.Pointer[string]

// build runs a model's builder as user code: the watchdog reports a builder that never returns,
// and a builder that panics is the model's error, not the worker's.
func build(name string, params map[string]string) (m *cmc.Model, err error) {
	building.Store(&name)
	transition.Enter()
	defer func() {
		transition.Leave()
		building.Store(nil)
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("model %s: its builder panicked: %v", name, r)
		}
	}()
	return cmc.Build(name, params)
}

// serveOnGoroutine serves req on a goroutine of its own, so model code that calls
// runtime.Goexit (t.FailNow, t.Fatal, t.SkipNow in a handler) ends that goroutine, not the
// worker's request loop, and the coordinator gets an answer instead of waiting forever.
func (w *server) serveOnGoroutine(req *Request) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.serving.Store(stackdump.Current())
		returned := false
		defer func() {
			if !returned {
				w.goexited(req)
			}
		}()
		w.serve(req)
		returned = true
	}()
	<-done
}

// goexited runs in the deferred calls of a goroutine that runtime.Goexit is ending, while its
// stack still shows who called Goexit. In a check's transition it reports a finding with the
// position, so the coordinator traces it as it does a hang; elsewhere (a builder, a replay) it is
// the request's error. Either way the worker then exits: the engine's locks and state may be
// left in the middle of a transition.
func (w *server) goexited(req *Request) {
	msg := "the model's code called runtime.Goexit" + goexitSite() +
		" (t.Fatal or t.FailNow in model code?): report failures with cmc.Assert or panic instead"
	if pos, ok := w.pos.get(); ok {
		w.reply(Reply{Crash: &Crash{Kind: "crash", Message: msg, Position: pos}})
	} else {
		w.reply(Reply{Done: true, Error: fmt.Sprintf("%s: %s", req.Op, msg)})
	}
	os.Exit(3)
}

// goexitSite is " at file:line" of the model's code that called runtime.Goexit, from the stack
// of the deferred call it is running.
func goexitSite() string {
	pcs := make([]uintptr, 128)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	exiting := false
	for {
		f, more := frames.Next()
		if f.Function == "runtime.Goexit" {
			exiting = true
		} else if exiting {
			fr := stackdump.Frame{Func: f.Function, File: f.File, Line: f.Line}
			if fr.User() && !strings.HasPrefix(f.Function, "testing.") {
				return " at " + fr.Site()
			}
		}
		if !more {
			return ""
		}
	}
}
