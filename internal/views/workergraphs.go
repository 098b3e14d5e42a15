package views

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
)

// WorkerGraphs makes real heap graphs: it builds the user's package (as check does) and replays
// the trace in it (service.Replayer), whose view of a step has the model's heap after the step
// with the objects it changed marked. One worker serves all traces; it keeps one trace open at a
// time.
type WorkerGraphs struct {
	Dir string // where Pkg is resolved from
	Pkg string // the package that registers the traces' models, e.g. "." or ./examples/aodv

	lifeOnce sync.Once
	life     context.Context // cancelled by Close, to stop a call in progress
	end      context.CancelFunc

	mu   sync.Mutex
	prog *service.Program
	berr error // a failed build, kept: every graph would fail the same way
	r    service.Replayer
}

// Graph returns the heap graph of trace id (t) after step.
func (p *WorkerGraphs) Graph(ctx context.Context, id int64, t *engine.Trace, step int) (*canon.Graph, error) {
	ctx, cancel := p.bound(ctx)
	defer cancel()
	prog, err := p.program(ctx)
	if err != nil {
		return nil, err
	}
	v, err := p.r.View(ctx, prog, id, t, engine.After(step))
	if err != nil {
		return nil, fmt.Errorf("replay trace %d to step %d: %w", id, step, err)
	}
	if v.Graph == nil {
		return nil, errors.New("replay view has no graph")
	}
	return v.Graph, nil
}

// Prepare builds and starts the worker ahead of the first graph.
func (p *WorkerGraphs) Prepare(ctx context.Context) error {
	ctx, cancel := p.bound(ctx)
	defer cancel()
	prog, err := p.program(ctx)
	if err != nil {
		return err
	}
	return p.r.Prepare(prog)
}

// program builds the package, once.
func (p *WorkerGraphs) program(ctx context.Context) (*service.Program, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog != nil || p.berr != nil {
		return p.prog, p.berr
	}
	prog, err := service.Open(ctx, p.Dir, p.Pkg)
	if err != nil {
		if ctx.Err() == nil { // a cancelled build may work next time
			p.berr = err
		}
		return nil, err
	}
	p.prog = prog
	return prog, nil
}

// bound ends ctx when Close is called.
func (p *WorkerGraphs) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	p.lifeOnce.Do(func() { p.life, p.end = context.WithCancel(context.Background()) })
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(p.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// Close stops the worker, ending a graph in progress.
func (p *WorkerGraphs) Close() {
	p.lifeOnce.Do(func() { p.life, p.end = context.WithCancel(context.Background()) })
	p.end()
	p.r.Close()
}
