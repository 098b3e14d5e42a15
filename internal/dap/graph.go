package dap

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

// The heap graph is the one view that needs the code: the store has the flattened state, not
// the objects and pointers. A replayer keeps a worker with the trace open (worker ops
// replay.open and replay.view) and asks it for the view of a position. Requests for it run off
// the session goroutine, since opening a long trace re-runs it.

// maxGraphBytes bounds a graph sent over DAP; larger ones are for the views server.
const maxGraphBytes = 1 << 20

type replayer struct {
	mu     sync.Mutex
	w      *coord.Worker
	bin    string
	traceN int64 // the trace the worker has open
	out    coord.Output
}

// view returns the replay view of a position of trace id, opening it in the worker first. A call
// into the model's code that takes longer than deadline seconds ends the worker (a hang).
func (r *replayer) view(ctx context.Context, bin string, id int64, t *engine.Trace, p position, deadline float64) (*replay.View, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil || r.bin != bin {
		r.closeLocked()
		w, err := coord.Start(bin, r.out)
		if err != nil {
			return nil, err
		}
		r.w, r.bin = w, bin
	}
	if r.traceN != id {
		args, _ := json.Marshal(worker.ReplayOpenArgs{Trace: t})
		rep, err := r.call(ctx, &worker.Request{Op: "replay.open", Deadline: deadline, Args: args})
		if err != nil {
			return nil, fmt.Errorf("re-run trace %d: %w", id, err)
		}
		var sum replay.Summary
		if json.Unmarshal(rep.Data, &sum) == nil && sum.Divergence != nil && sum.Divergence.Step <= p.Step {
			return nil, sum.Divergence
		}
		r.traceN = id
	}
	va := worker.ReplayViewArgs{Step: p.Step}
	if p.inside() {
		va.Choice = p.Choice + 1
	}
	args, _ := json.Marshal(va)
	rep, err := r.call(ctx, &worker.Request{Op: "replay.view", Deadline: deadline, Args: args})
	if err != nil {
		return nil, err
	}
	var v replay.View
	if err := json.Unmarshal(rep.Data, &v); err != nil {
		return nil, fmt.Errorf("replay.view: %w", err)
	}
	return &v, nil
}

func (r *replayer) call(ctx context.Context, req *worker.Request) (*worker.Reply, error) {
	rep, err := r.w.Call(ctx, req, nil)
	if err != nil {
		r.closeLocked() // the worker died or was killed: start a fresh one next time
		return nil, err
	}
	if rep.Error != "" {
		return nil, errors.New(rep.Error)
	}
	return rep, nil
}

func (r *replayer) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}

func (r *replayer) closeLocked() {
	if r.w != nil {
		r.w.Close()
		r.w, r.traceN = nil, 0
	}
}

// cmcGraph answers with the heap graph of the current position (or {step}) when it is small.
func (s *Session) cmcGraph(req *customRequest) (any, error) {
	var a struct {
		Step *int `json:"step"`
	}
	if err := args(req, &a); err != nil {
		return nil, err
	}
	if err := s.needStop(); err != nil {
		return nil, err
	}
	p := s.pos
	if a.Step != nil {
		if *a.Step < 0 || *a.Step > s.tr.len() {
			return nil, fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", *a.Step, s.tr.len())
		}
		p = after(*a.Step)
	}
	if s.launch == nil || s.launch.Program == "" {
		return nil, errors.New(`the heap graph re-runs the trace in the model's code: give "program" in the launch configuration`)
	}
	c, b, id, t := s.launch, s.build, s.tr.id, s.tr.t
	go func() {
		// Off the session goroutine: building and re-running take a while. send is safe here.
		g, err := s.graph(c, b, id, t, p)
		if err != nil {
			s.sendError(&req.Request, errGraph, req.Command+": "+err.Error())
			return
		}
		s.send(&customResponse{Response: response(&req.Request), Body: g})
	}()
	return deferred{}, nil
}

// deferred is the body of a custom request answered later, by another goroutine.
type deferred struct{}

func (s *Session) graph(c *launchConfig, b *build, id int64, t *engine.Trace, p position) (any, error) {
	ctx := context.Background()
	if b == nil {
		pkg, err := resolve(ctx, c)
		if err != nil {
			return nil, err
		}
		bin, err := coord.Build(ctx, pkg)
		if err != nil {
			return nil, err
		}
		b = &build{pkg: pkg, bin: bin}
		s.post(func() {
			if s.build == nil {
				s.build = b
			}
		})
	}
	v, err := s.replay.view(ctx, b.bin, id, t, p, c.Deadline)
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(v.Graph)
	if err != nil {
		return nil, err
	}
	if len(js) > maxGraphBytes {
		msg := fmt.Sprintf("the graph of step %d has %d objects (%d KiB): too large for DAP; open it in the views", p.Step, len(v.Graph.Objects), len(js)>>10)
		if s.views != nil {
			msg += " at " + s.views.URL()
		}
		return nil, errors.New(msg)
	}
	return map[string]any{"step": p.Step, "graph": json.RawMessage(js)}, nil
}
