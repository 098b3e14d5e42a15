package worker

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"

	"github.com/cmc-go/cmc/engine"
)

// One step of a stored trace, run under a Go debugger (Delve). cmcdap builds the worker without
// optimisations and has Delve start it as
//
//	worker -cmc-step FILE
//
// where FILE holds StepArgs. The worker replays the trace's first Step-1 steps, calls StepEnter
// (Delve stops there on a function breakpoint, and only then adds the user's breakpoints and one
// on the handler, so the replayed steps do not stop), runs step Step with its recorded Choose
// values, checks that it reaches the stored state, and calls StepLeave with what it found. Delve
// reads both calls' arguments; nothing else crosses.

// StepFlag is the argument that runs one step for a debugger.
const StepFlag = "-cmc-step"

// StepArgs say which step to run.
type StepArgs struct {
	Model  string            `json:"model"`
	Params map[string]string `json:"params,omitempty"`
	Trace  *engine.Trace     `json:"trace"`
	Step   int               `json:"step"` // 1-based
	// Scan runs every step up to Step, with the debugger's breakpoints from the first: the
	// debugger learns which steps run a line (the variable n of stepResult is the step).
	Scan bool `json:"scan,omitempty"`
}

// The functions a debugger stops on. They are not inlined (and a debug build inlines nothing).
const (
	StepEnterFunc = "github.com/cmc-go/cmc/worker.StepEnter"
	StepLeaveFunc = "github.com/cmc-go/cmc/worker.StepLeave"
)

// StepEnter is called once the state before the step is loaded, just before its enabling
// condition and handler run; handler is the handler's function as Delve names it.
//
//go:noinline
func StepEnter(step int, handler string) { runtime.KeepAlive(handler) }

// StepLeave is called when the step has run (or could not): result is "ok" when it reached the
// stored state, else what went wrong, in the user's words.
//
//go:noinline
func StepLeave(step int, result string) { runtime.KeepAlive(result) }

// runStep runs the step FILE names and returns the process's exit code.
func runStep(file string) int {
	var a StepArgs
	b, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	if err == nil && (a.Trace == nil || a.Step < 1 || a.Step > len(a.Trace.Steps)) {
		err = fmt.Errorf("no step %d in the trace", a.Step)
	}
	if err != nil {
		StepLeave(a.Step, "cannot run the step: "+err.Error())
		return 2
	}
	result := stepResult(&a)
	StepLeave(a.Step, result)
	if result != "ok" {
		return 1
	}
	return 0
}

func stepResult(a *StepArgs) string {
	m, err := build(a.Model, a.Params)
	if err != nil {
		return err.Error()
	}
	mc, s, err := engine.NewMachine(m)
	if err != nil {
		return err.Error()
	}
	defer mc.Close()
	first := a.Step // the first step the debugger stops in
	if a.Scan {
		first = 1
	}
	for n := 1; n <= a.Step; n++ {
		st := &a.Trace.Steps[n-1]
		if n == first {
			_, ev := mc.Event(st.Proc, st.Event)
			if ev == nil {
				return fmt.Sprintf("the model has no event %s.%s now", st.Proc, st.Event)
			}
			StepEnter(n, HandlerName(ev.Handler))
		}
		next, out, err := mc.Apply(s, n, st, false)
		switch {
		case err != nil && n < first:
			return fmt.Sprintf("replaying the steps before step %d: %v", first, err)
		case err != nil:
			return err.Error()
		case out.Failure != nil && n < a.Step:
			return fmt.Sprintf("step %d fails now: %s", n, out.Failure.Message)
		case out.Failure != nil:
			return "the step failed: " + out.Failure.Message
		case n >= first && st.Hash != 0 && engine.Hash(mc.Hash(next)) != st.Hash:
			return fmt.Sprintf("step %d reached another state than the stored trace's (%s, not %s): something changed the model's state while it was stopped", n, engine.Hash(mc.Hash(next)), st.Hash)
		}
		s = next
	}
	return "ok"
}

// HandlerName is a handler's function as a debugger names it: a closure such as
// "example.com/aodv.build.func3", or for a method value the method itself (Go wraps it in a
// function whose name ends in "-fm").
func HandlerName(h func()) string {
	f := runtime.FuncForPC(reflect.ValueOf(h).Pointer())
	if f == nil {
		return ""
	}
	return strings.TrimSuffix(f.Name(), "-fm")
}
