package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
)

// The heap graph is the one view that needs the code: the store has the flattened state, not
// the objects and pointers. The session's service.Replayer keeps a worker with the trace open and
// asks it for the view of a engine.Cursor. Requests for it run off the session goroutine, since
// opening a long trace re-runs it.

// maxGraphBytes bounds a graph sent over DAP; larger ones are for the views server.
const maxGraphBytes = 1 << 20

// cmcGraph answers with the heap graph of the current engine.Cursor (or {step}) when it is small.
func (s *Session) cmcGraph(req *customRequest, a stepArgs) (later[graphBody], error) {
	var reply later[graphBody]
	if err := s.needStop(); err != nil {
		return reply, err
	}
	p := s.pos
	if a.Step != nil {
		if *a.Step < 0 || *a.Step > s.tr.len() {
			return reply, fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", *a.Step, s.tr.len())
		}
		p = engine.After(*a.Step)
	}
	if s.launch == nil || s.launch.Program == "" {
		return reply, errors.New(`the heap graph re-runs the trace in the model's code: give "program" in the launch configuration`)
	}
	c, b, id, t := s.launch, s.build, s.tr.id, s.tr.t
	go func() {
		// Off the session goroutine: building and re-running take a while. send is safe here.
		g, err := s.graph(c, b, id, t, p)
		if err != nil {
			s.sendError(&req.Request, errGraph, req.Command+": "+err.Error())
			return
		}
		reply.send(s, req, g)
	}()
	return reply, nil
}

type graphBody struct {
	Step  int             `json:"step"`
	Graph json.RawMessage `json:"graph"` // a canon.Graph, marshalled once to measure it
}

func (s *Session) graph(c *launchConfig, b *service.Program, id int64, t *engine.Trace, p engine.Cursor) (graphBody, error) {
	ctx := context.Background()
	if b == nil {
		var err error
		if b, err = service.Open(ctx, c.Cwd, c.Program); err != nil {
			return graphBody{}, err
		}
		s.post(func() {
			if s.build == nil {
				s.build = b
			}
		})
	}
	s.replay.SetDeadline(c.Deadline)
	v, err := s.replay.View(ctx, b, id, t, p)
	if err != nil {
		return graphBody{}, err
	}
	js, err := json.Marshal(v.Graph)
	if err != nil {
		return graphBody{}, err
	}
	if len(js) > maxGraphBytes {
		msg := fmt.Sprintf("the graph of step %d has %d objects (%d KiB): too large for DAP; open it in the views", p.Step, len(v.Graph.Objects), len(js)>>10)
		if s.views != nil {
			msg += " at " + s.views.URL()
		}
		return graphBody{}, errors.New(msg)
	}
	return graphBody{p.Step, js}, nil
}
