package coord

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
	"github.com/google/go-dap"
)

// A Line is a line of the user's code, as the editor names its file.
type Line struct {
	Path string
	Line int
}

// ScanLines runs the first n steps of trace t under Delve with a breakpoint on each line, and
// returns the steps that ran each line (in order, once each; a line that no step runs, or that
// Delve could not place a breakpoint on, has none). It is how a breakpoint on any line of the
// protocol code finds its steps without instrumenting the build.
func ScanLines(ctx context.Context, dlv, bin, dir string, t *engine.Trace, model string, n int, lines []Line, out Output) (map[Line][]int, error) {
	d, err := DebugStep(ctx, dlv, bin, dir, worker.StepArgs{Model: model, Params: t.Params, Trace: t, Step: n, Scan: true}, out)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	byPath := map[string][]int{}
	var paths []string
	for _, l := range lines {
		if _, ok := byPath[l.Path]; !ok {
			paths = append(paths, l.Path)
		}
		byPath[l.Path] = append(byPath[l.Path], l.Line)
	}
	ids := map[int]Line{}
	for _, p := range paths {
		a := dap.SetBreakpointsArguments{Source: dap.Source{Path: p}}
		for _, l := range byPath[p] {
			a.Breakpoints = append(a.Breakpoints, dap.SourceBreakpoint{Line: l})
		}
		set, err := d.SetBreakpoints(ctx, a)
		if err != nil {
			return nil, err
		}
		for i, b := range set {
			if b.Verified && i < len(byPath[p]) {
				ids[b.Id] = Line{p, byPath[p][i]}
			}
		}
	}
	steps := map[Line][]int{}
	for _, l := range lines {
		steps[l] = nil
	}
	thread := d.waiting
	for {
		if _, err := d.c.Do(ctx, &dap.ContinueRequest{Request: request("continue"), Arguments: dap.ContinueArguments{ThreadId: thread}}); err != nil {
			return nil, err
		}
		e, err := d.nextStop(ctx)
		if err != nil {
			return nil, err
		}
		if e == nil {
			return nil, fmt.Errorf("the worker ended before the trace did")
		}
		thread = e.Body.ThreadId
		frames, err := d.stack(ctx, thread)
		if err != nil {
			return nil, err
		}
		if sameFunc(frames[0].Name, worker.StepLeaveFunc) {
			st, err := d.leave(ctx, frames[0])
			if err == nil && st.Result != "ok" {
				err = fmt.Errorf("%s", st.Result)
			}
			return steps, err
		}
		step, err := d.runningStep(ctx, frames)
		if err != nil {
			return nil, err
		}
		for _, id := range e.Body.HitBreakpointIds {
			if l, ok := ids[id]; ok && !slices.Contains(steps[l], step) {
				steps[l] = append(steps[l], step)
			}
		}
	}
}

// nextStop waits for the next stopped event (nil when the program ended), passing output on.
func (d *Debugger) nextStop(ctx context.Context) (*dap.StoppedEvent, error) {
	for {
		e, err := d.c.Event(ctx)
		if err != nil {
			return nil, err
		}
		switch e := e.(type) {
		case *dap.StoppedEvent:
			return e, nil
		case *dap.TerminatedEvent, *dap.ExitedEvent:
			return nil, nil
		case *dap.OutputEvent:
			d.output(e)
		}
	}
}

// runningStep reads which step the worker is running: stepResult's n.
func (d *Debugger) runningStep(ctx context.Context, frames []dap.StackFrame) (int, error) {
	for _, f := range frames {
		if f.Name != "worker.stepResult" {
			continue
		}
		v, err := d.c.Do(ctx, &dap.EvaluateRequest{Request: request("evaluate"),
			Arguments: dap.EvaluateArguments{Expression: "n", FrameId: f.Id, Context: "repl"}})
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(v.(*dap.EvaluateResponse).Body.Result)
	}
	return 0, fmt.Errorf("debugger: a breakpoint hit outside a step")
}
