package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/replay"
	"github.com/cmc-go/cmc/worker"
)

// A Replayer re-runs stored traces in the model's code, in a worker that keeps one trace open
// (worker ops replay.open and replay.view), for what the store cannot answer: the heap graph, a
// position inside a step. It is safe for concurrent use; one call runs at a time. A worker that
// dies (the model's code crashed it) or is cancelled is replaced by a fresh one on the next call.
type Replayer struct {
	// Out receives the model's output (nil: on stderr, prefixed).
	Out Output
	// Deadline is how long one call into the model's code may run, in seconds (0: 10).
	Deadline float64

	mu   sync.Mutex
	w    *coord.Worker
	bin  string
	id   int64 // the trace open in the worker (0: none)
	sum  replay.Summary
	open bool
}

// A Replay names what to open: a model other than the trace's, or only its first To steps.
type Replay struct {
	Model string // default: the trace's
	To    int    // 0: every step
}

// Open opens trace t (stored as id; 0 for a trace from elsewhere) in p's worker and returns what
// replaying it proved. A divergence is in the summary, not an error; a worker that died is an
// *ErrDied.
func (r *Replayer) Open(ctx context.Context, p *Program, id int64, t *engine.Trace, how Replay) (*replay.Summary, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.openLocked(ctx, p, id, t, how); err != nil {
		return nil, err
	}
	sum := r.sum
	return &sum, nil
}

func (r *Replayer) openLocked(ctx context.Context, p *Program, id int64, t *engine.Trace, how Replay) error {
	if r.w == nil || r.bin != p.bin {
		r.closeLocked()
		if err := r.start(p); err != nil {
			return err
		}
	}
	if r.open && id != 0 && r.id == id && how == (Replay{}) {
		return nil
	}
	r.open = false
	data, err := r.call(ctx, "replay.open", worker.ReplayOpenArgs{Model: how.Model, Params: t.Params, Trace: t, To: how.To})
	if err != nil {
		return err
	}
	r.sum = replay.Summary{}
	if err := json.Unmarshal(data, &r.sum); err != nil {
		return fmt.Errorf("worker: bad replay summary: %w", err)
	}
	r.id, r.open = id, id != 0 && how == (Replay{})
	return nil
}

// View returns the view at position at of trace id (t), opening it first when another is open. A
// position at or past the step where the trace diverged is the *replay.Divergence.
func (r *Replayer) View(ctx context.Context, p *Program, id int64, t *engine.Trace, at engine.Cursor) (*replay.View, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.openLocked(ctx, p, id, t, Replay{}); err != nil {
		return nil, fmt.Errorf("re-run trace %d: %w", id, err)
	}
	if d := r.sum.Divergence; d != nil && d.Step <= at.Step {
		return nil, d
	}
	data, err := r.call(ctx, "replay.view", worker.ReplayViewArgs{Step: at.Step, Choice: at.Choice})
	if err != nil {
		return nil, err
	}
	var v replay.View
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("replay.view: %w", err)
	}
	return &v, nil
}

// SetDeadline sets Deadline, for the views and steps to come.
func (r *Replayer) SetDeadline(seconds float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Deadline = seconds
}

// Prepare starts p's worker ahead of the first view.
func (r *Replayer) Prepare(p *Program) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil && r.bin == p.bin {
		return nil
	}
	r.closeLocked()
	w, err := coord.Start(p.bin, r.Out)
	if err != nil {
		return err
	}
	r.w, r.bin = w, p.bin
	return nil
}

func (r *Replayer) call(ctx context.Context, op string, args any) (json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	rep, err := r.w.Call(ctx, &worker.Request{Op: op, Deadline: r.Deadline, Args: b}, nil)
	if err != nil {
		r.closeLocked() // the worker died or was killed: start a fresh one next time
		return nil, err
	}
	if rep.Error != "" {
		return nil, errors.New(rep.Error)
	}
	return rep.Data, nil
}

// Close stops the worker.
func (r *Replayer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}

func (r *Replayer) closeLocked() {
	if r.w != nil {
		r.w.Close()
	}
	r.w, r.bin, r.id, r.open = nil, "", 0, false
}

// Replay opens trace t in a fresh worker of p, returns what replaying it proved, and stops the
// worker: the CLI's replay command.
func (p *Program) Replay(ctx context.Context, t *engine.Trace, how Replay) (*replay.Summary, error) {
	var r Replayer
	defer r.Close()
	return r.Open(ctx, p, 0, t, how)
}

// Minimize looks for a shorter trace ending in t's violation, in a fresh worker of p (it runs the
// model's code): breadth-first search bounded by states (0: replay.MinimizeStates), else deleting
// steps. shortest says the search found it, so none shorter exists.
func (p *Program) Minimize(ctx context.Context, t *engine.Trace, states int64) (min *engine.Trace, shortest bool, err error) {
	var m worker.MinimizeReply
	if err := p.once(ctx, "replay.minimize", worker.ReplayOpenArgs{Trace: t, States: states}, &m); err != nil {
		return nil, false, err
	}
	if m.Trace == nil {
		return nil, false, fmt.Errorf("worker: no minimized trace")
	}
	return m.Trace, m.Shortest, nil
}

// start starts a worker of p for r (r.mu held).
func (r *Replayer) start(p *Program) error {
	w, err := coord.Start(p.bin, r.Out)
	if err != nil {
		return err
	}
	r.w, r.bin = w, p.bin
	return nil
}
