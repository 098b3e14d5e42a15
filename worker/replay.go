package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/replay"
)

// The replay ops keep one open replay.Session per worker process, so the coordinator (the DAP
// session) can open a stored trace once and then ask for any step's view (heap graph, diff,
// choices, notes) as the user moves through it.
//
//	replay.open  {model, params, trace, to}  -> replay.Summary (a divergence is data, not an error)
//	replay.view  {step, choice}              -> replay.View at that position
//	replay.close {}                          -> {}
//	replay.minimize {model, params, trace, states} -> MinimizeReply: a shorter trace, same violation
//
// model and params default to the request's Model and Params.
func init() {
	Register("replay.open", replayOpen)
	Register("replay.view", replayView)
	Register("replay.close", replayClose)
	Register("replay.minimize", replayMinimize)
}

// ReplayOpenArgs are the arguments of replay.open and replay.minimize.
type ReplayOpenArgs struct {
	Model  string            `json:"model,omitempty"`
	Params map[string]string `json:"params,omitempty"`
	Trace  *engine.Trace     `json:"trace"`
	To     int               `json:"to,omitempty"`     // replay.open: replay only the first To steps (0: all)
	States int64             `json:"states,omitempty"` // replay.minimize: bound of its breadth-first search (0: replay.MinimizeStates)
}

// ReplayViewArgs are the arguments of replay.view.
type ReplayViewArgs struct {
	Step   int `json:"step"`
	Choice int `json:"choice,omitempty"` // 0: the end of the step; k: at its k-th Choose call
}

var replaySession struct {
	sync.Mutex
	s *replay.Session
}

// traceArgs decodes the arguments of replay.open and replay.minimize, defaulting the model and
// its parameters to the request's, then to the trace's.
func traceArgs(op string, req *Request) (ReplayOpenArgs, error) {
	var a ReplayOpenArgs
	if err := json.Unmarshal(req.Args, &a); err != nil {
		return a, fmt.Errorf("%s: bad arguments: %w", op, err)
	}
	if a.Trace == nil {
		return a, fmt.Errorf("%s: no trace", op)
	}
	if a.Model == "" {
		a.Model = req.Model
	}
	if a.Model == "" {
		a.Model = a.Trace.Model
	}
	if a.Params == nil {
		a.Params = req.Params
	}
	if a.Params == nil {
		a.Params = a.Trace.Params
	}
	return a, nil
}

func replayOpen(req *Request) ([]byte, error) {
	a, err := traceArgs("replay.open", req)
	if err != nil {
		return nil, err
	}
	m, err := build(a.Model, a.Params)
	if err != nil {
		return nil, err
	}
	replaySession.Lock()
	defer replaySession.Unlock()
	if replaySession.s != nil {
		replaySession.s.Close()
		replaySession.s = nil
	}
	s, err := replay.OpenTo(m, a.Trace, a.To)
	if s == nil {
		return nil, err
	}
	replaySession.s = s
	return json.Marshal(s.Summary())
}

func replayView(req *Request) ([]byte, error) {
	var a ReplayViewArgs
	if len(req.Args) > 0 {
		if err := json.Unmarshal(req.Args, &a); err != nil {
			return nil, fmt.Errorf("replay.view: bad arguments: %w", err)
		}
	}
	replaySession.Lock()
	defer replaySession.Unlock()
	if replaySession.s == nil {
		return nil, errors.New("replay.view: no trace is open: send replay.open first")
	}
	if err := replaySession.s.Seek(engine.Cursor{Step: a.Step, Choice: a.Choice}); err != nil {
		return nil, err
	}
	v, err := replaySession.s.View()
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func replayClose(*Request) ([]byte, error) {
	replaySession.Lock()
	defer replaySession.Unlock()
	if replaySession.s != nil {
		replaySession.s.Close()
		replaySession.s = nil
	}
	return []byte("{}"), nil
}

// replayMinimize runs replay.Minimize here, since it runs the model's code: a search for a
// shorter path to the trace's violation, else deleting steps while the violation remains.
func replayMinimize(req *Request) ([]byte, error) {
	a, err := traceArgs("replay.minimize", req)
	if err != nil {
		return nil, err
	}
	if _, err := build(a.Model, a.Params); err != nil {
		return nil, err
	}
	build := func() *cmc.Model {
		m, _ := build(a.Model, a.Params) // built once above: the parameters are good
		return m
	}
	t, shortest, err := replay.Minimize(build, a.Trace, a.States)
	if err != nil {
		return nil, err
	}
	t.Params = a.Params
	return json.Marshal(MinimizeReply{Trace: t, Shortest: shortest})
}

// MinimizeReply is what replay.minimize returns.
type MinimizeReply struct {
	Trace *engine.Trace `json:"trace"`
	// Shortest: breadth-first search found the trace, so none shorter ends in the violation.
	// Else steps were deleted until none could be (and a shorter trace may still exist).
	Shortest bool `json:"shortest"`
}
