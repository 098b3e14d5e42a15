package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/worker"
)

// WorkerGraphs makes real heap graphs: it builds the user's package into a worker (as check
// does), opens the trace in the worker's replay session ("replay.open") and asks for the view
// of each step ("replay.view"), whose graph is the model's heap after the step with the objects
// it changed marked. One worker serves all traces; it keeps one trace open at a time.
type WorkerGraphs struct {
	Dir string // where Pkg is resolved from
	Pkg string // the package that registers the traces' models, e.g. "." or ./examples/aodv

	lifeOnce sync.Once
	life     context.Context // cancelled by Close, to stop a call in progress
	end      context.CancelFunc

	mu   sync.Mutex
	bin  string
	berr error // a failed build, kept: every graph would fail the same way
	w    *coord.Worker
	open int64 // the trace open in the worker; 0: none
}

// Graph returns the heap graph of trace id (t) after step.
func (p *WorkerGraphs) Graph(ctx context.Context, id int64, t *engine.Trace, step int) (*canon.Graph, error) {
	ctx, cancel := p.bound(ctx)
	defer cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.start(ctx); err != nil {
		return nil, err
	}
	if p.open != id {
		args, err := json.Marshal(worker.ReplayOpenArgs{Model: t.Model, Params: t.Params, Trace: t})
		if err != nil {
			return nil, err
		}
		if _, err := p.call(ctx, "replay.open", args); err != nil {
			return nil, fmt.Errorf("replay trace %d: %w", id, err)
		}
		p.open = id
	}
	args, _ := json.Marshal(worker.ReplayViewArgs{Step: step})
	data, err := p.call(ctx, "replay.view", args)
	if err != nil {
		return nil, fmt.Errorf("replay trace %d to step %d: %w", id, step, err)
	}
	var v struct {
		Graph *canon.Graph `json:"graph"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("replay view: %w", err)
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
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.start(ctx)
}

func (p *WorkerGraphs) start(ctx context.Context) error {
	if p.w != nil {
		return nil
	}
	if p.berr != nil {
		return p.berr
	}
	if p.bin == "" {
		pkg, err := coord.Resolve(ctx, p.Dir, p.Pkg)
		if err == nil {
			p.bin, err = coord.Build(ctx, pkg)
		}
		if err != nil {
			if ctx.Err() == nil { // a cancelled build may work next time
				p.berr = err
			}
			return err
		}
	}
	w, err := coord.Start(p.bin, nil) // the model's output: on stderr, prefixed
	if err != nil {
		return err
	}
	p.w, p.open = w, 0
	return nil
}

func (p *WorkerGraphs) call(ctx context.Context, op string, args []byte) ([]byte, error) {
	r, err := p.w.Call(ctx, &worker.Request{Op: op, Args: args}, nil)
	if err != nil { // the worker died (the model's code crashed it) or ctx ended: start afresh next time
		p.w.Close()
		p.w, p.open = nil, 0
		return nil, err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	return r.Data, nil
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
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		p.w.Close()
		p.w = nil
	}
}
