package service

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/worker"
)

// An Alternative is another way a step of a trace could have gone (engine/branch.go).
type Alternative = engine.Alternative

// Alternatives lists the other ways step n (1-based) of t could have gone, from the same state:
// other values of its Choose calls, then other enabled events. It runs the model's code in a
// fresh worker of p.
func (p *Program) Alternatives(ctx context.Context, t *engine.Trace, n int) ([]Alternative, error) {
	var alts []Alternative
	err := p.once(ctx, "replay.alternatives", worker.BranchArgs{ReplayOpenArgs: worker.ReplayOpenArgs{Trace: t}, Step: n}, &alts)
	return alts, err
}

// Branch makes the trace that follows stored trace from (t) for n-1 steps and then takes
// alternative a, stores it in db as derived from it ("what if step N: …"), and returns its id and
// the trace; its violation, if any, is the one the alternative causes at once.
func (p *Program) Branch(ctx context.Context, db *store.Store, from int64, t *engine.Trace, n int, a Alternative) (int64, *engine.Trace, error) {
	var b engine.Trace
	if err := p.once(ctx, "replay.branch", worker.BranchArgs{ReplayOpenArgs: worker.ReplayOpenArgs{Trace: t}, Step: n, Alternative: &a}, &b); err != nil {
		return 0, nil, err
	}
	id, err := db.AddDerived(from, fmt.Sprintf("what if step %d: %s", n, a.What), &b, time.Time{})
	return id, &b, err
}

// once runs one op in a fresh worker of p and decodes its reply into out.
func (p *Program) once(ctx context.Context, op string, args, out any) error {
	var r Replayer
	defer r.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.start(p); err != nil {
		return err
	}
	data, err := r.call(ctx, op, args)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("worker: bad %s reply: %v", op, err)
	}
	return nil
}
