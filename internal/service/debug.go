package service

import (
	"context"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/worker"
)

// A Debugger is one step of a trace running in the user's code under Delve (coord/debug.go).
type Debugger = coord.Debugger

// A DebugStop is where a step under Delve stopped, or that it ended.
type DebugStop = coord.Stop

// ErrNoDelve is a machine without Delve.
var ErrNoDelve = coord.ErrNoDelve

// FindDelve returns the dlv to run: path when given, else dlv on PATH or where go install puts it.
func FindDelve(path string) (string, error) { return coord.FindDelve(path) }

// DebugStep runs step n (1-based) of trace t in a build of p without optimisations, under the
// Delve at dlv, and returns once the steps before it have replayed. model and params default to
// the trace's. The build is cached like the worker's, so only the first step in takes the
// compiler's time.
func (p *Program) DebugStep(ctx context.Context, dlv string, t *engine.Trace, n int, model string, out Output) (*Debugger, error) {
	bin, err := coord.BuildDebug(ctx, p.Package)
	if err != nil {
		return nil, err
	}
	if model == "" {
		model = t.Model
	}
	return coord.DebugStep(ctx, dlv, bin, p.Package.Dir, worker.StepArgs{Model: model, Params: t.Params, Trace: t, Step: n}, out)
}

// A Line is a line of the user's code, as the editor names its file.
type Line = coord.Line

// ScanLines finds the steps of trace t that run each line, by running the trace in a debug build
// of p under Delve with a breakpoint on each (coord.ScanLines).
func (p *Program) ScanLines(ctx context.Context, dlv string, t *engine.Trace, model string, lines []Line, out Output) (map[Line][]int, error) {
	bin, err := coord.BuildDebug(ctx, p.Package)
	if err != nil {
		return nil, err
	}
	if model == "" {
		model = t.Model
	}
	return coord.ScanLines(ctx, dlv, bin, p.Package.Dir, t, model, len(t.Steps), lines, out)
}
