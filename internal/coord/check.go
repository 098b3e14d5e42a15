package coord

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

// Check runs a check in a fresh worker. When a transition hangs or kills the worker, it starts
// another, re-runs the same deterministic search up to that transition, and returns the result
// with the hang or crash as a violation with its trace. The model's output goes to out (see
// Start).
func Check(ctx context.Context, bin string, req *worker.Request, progress func(engine.Progress), out Output) (*engine.Result, error) {
	return checkEnv(ctx, bin, nil, req, progress, out)
}

// checkEnv is Check with env added to the worker's environment.
func checkEnv(ctx context.Context, bin string, env []string, req *worker.Request, progress func(engine.Progress), out Output) (*engine.Result, error) {
	req.Op = "check"
	res, err := checkOnce(ctx, bin, env, req, progress, out)
	var died *ErrDied
	if !errors.As(err, &died) {
		return res, err
	}
	if died.Crash.NoTrace {
		// Not in a transition (the model's builder, the search's own memory): nothing to trace.
		return nil, errors.New(died.Crash.Message)
	}
	if died.Crash.Concurrent {
		// Several transitions ran at once (a parallel search): search again on one goroutine,
		// which finds the one that crashes in the search's own order, or none if the crash came
		// from instances of the model running at once.
		one := *req
		var co worker.CheckOptions
		if req.Check != nil {
			co = *req.Check
		}
		co.Workers = 1
		one.Check = &co
		res, err := checkOnce(ctx, bin, env, &one, progress, out)
		if !errors.As(err, &died) {
			if res != nil {
				res.Rerun = "the parallel search crashed (" + died.Crash.Message + "), so it ran again on one goroutine"
			}
			return res, err
		}
		if died.Crash.NoTrace || died.Crash.Concurrent {
			return nil, errors.New(died.Crash.Message)
		}
		req = &one
	}
	again := *req
	again.Reproduce = died.Crash
	res, err = checkOnce(ctx, bin, env, &again, nil, out)
	if err != nil {
		return nil, fmt.Errorf("%s; tracing it failed too: %w", died.Crash.Message, err)
	}
	if len(res.Violations) == 0 {
		return nil, fmt.Errorf("%s, but re-running the search did not reach that transition again (is the model nondeterministic?)", died.Crash.Message)
	}
	res.Complete = false
	return res, nil
}

func checkOnce(ctx context.Context, bin string, env []string, req *worker.Request, progress func(engine.Progress), out Output) (*engine.Result, error) {
	w, err := start(bin, env, out)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	r, err := w.Call(ctx, req, progress)
	if err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	return r.Result, nil
}

// Models lists the models the worker's package registered; what its init functions print goes
// to out.
func Models(ctx context.Context, bin string, out Output) ([]string, error) {
	w, err := Start(bin, out)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	r, err := w.Call(ctx, &worker.Request{Op: "models"}, nil)
	if err != nil {
		return nil, err
	}
	return r.Models, nil
}
