package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
)

// An Op serves a registered request kind (replay registers its own) and returns the reply data.
type Op func(req *Request) ([]byte, error)

var ops = map[string]Op{}

// maxStack bounds a goroutine's stack in the worker: a handler that recurses past it is reported
// as a crash (stack overflow) with its trace.
const maxStack = 64 << 20

// Register adds an op; call it from an init function.
func Register(name string, op Op) { ops[name] = op }

// A ProgressOp is an Op that reports progress while it runs, as a check does (a partition of a
// partitioned check: package cluster).
type ProgressOp func(req *Request, progress func(engine.Progress)) ([]byte, error)

var progressOps = map[string]ProgressOp{}

// RegisterProgress adds an op that reports progress; call it from an init function.
func RegisterProgress(name string, op ProgressOp) { progressOps[name] = op }

// Build builds a registered model for an op, turning a panic in its builder into an error.
func Build(name string, params map[string]string) (*cmc.Model, error) { return build(name, params) }

// The protocol's file descriptors (exec.Cmd.ExtraFiles in the coordinator). Descriptors 0-2 are
// the model's: a Println in a handler goes to the user, not into a reply.
const (
	requestFD = 3 // requests, one JSON object per line
	replyFD   = 4 // replies, one JSON object per line
	crashFD   = 5 // a copy of a fatal error's output (debug.SetCrashOutput), without the model's stderr
)

// Main serves requests until the coordinator closes its end. The user's package is built with a
// main that only calls this.
func Main() {
	// A runaway recursion should be reported quickly, not after growing a 1 GB stack; protocol
	// handlers need far less than this.
	debug.SetMaxStack(maxStack)
	if len(os.Args) == 3 && os.Args[1] == StepFlag {
		os.Exit(runStep(os.Args[2])) // under a debugger (stepin.go)
	}
	requests, replies := os.NewFile(requestFD, "cmc requests"), os.NewFile(replyFD, "cmc replies")
	if _, err := replies.Stat(); err != nil {
		fmt.Fprintln(os.Stderr, "this is a cmc worker: cmcdap starts it with its requests on descriptor 3 and replies on 4; run cmcdap check instead")
		os.Exit(2)
	}
	if f := os.NewFile(crashFD, "cmc crash output"); f != nil {
		if _, err := f.Stat(); err == nil {
			debug.SetCrashOutput(f, debug.CrashOptions{})
			f.Close() // SetCrashOutput keeps its own copy
		}
	}
	w := &server{out: json.NewEncoder(replies), pos: openPosition(os.Getenv("CMC_POSITION"))}
	w.setDeadline(0)
	w.setMemory(0)
	go w.watchdog()
	// A request is one line, up to a whole trace of 100 MB: ReadBytes looks at each byte once,
	// where a bufio.Scanner would search its whole buffer again after every read from the pipe.
	in := bufio.NewReaderSize(requests, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return // the coordinator is done
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			w.reply(Reply{Done: true, Error: "worker: bad request: " + err.Error()})
			continue
		}
		w.serveOnGoroutine(&req)
	}
}

type server struct {
	mu  sync.Mutex // guards out: the watchdog may write too
	out *json.Encoder
	pos *position

	deadline atomic.Int64 // nanoseconds one call into user code may take
	memory   atomic.Int64 // bytes of live heap the model may use
	serving  atomic.Int64 // id of the goroutine serving the current request, for hang reports
}

// defaultDeadline is how long one handler run (or condition, or invariant) may take when the
// request names no deadline, in checks and replays alike.
const defaultDeadline = 10 * time.Second

func (w *server) reply(r Reply) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Encode(r)
}

func (w *server) serve(req *Request) {
	defer func() {
		// A panic here is a bug of ours, not the user's: say so and stay alive.
		if r := recover(); r != nil {
			w.reply(Reply{Done: true, Error: fmt.Sprintf("worker: internal error: %v", r)})
		}
	}()
	w.pos.clear() // until the check publishes its first transition
	switch req.Op {
	case "models":
		w.reply(Reply{Done: true, Models: cmc.Models()})
	case "check":
		if req.Check != nil {
			w.setDeadline(req.Check.Deadline)
			w.setMemory(req.Check.Memory)
		}
		res, err := w.check(req)
		if err != nil {
			w.reply(Reply{Done: true, Error: err.Error()})
			return
		}
		w.reply(Reply{Done: true, Result: res})
	default:
		if op, ok := progressOps[req.Op]; ok {
			w.setDeadline(req.Deadline)
			last := time.Now()
			data, err := op(req, func(p engine.Progress) {
				if now := time.Now(); now.Sub(last) >= time.Second {
					last = now
					w.reply(Reply{Progress: &p})
				}
			})
			if err != nil {
				w.reply(Reply{Done: true, Error: err.Error()})
				return
			}
			w.reply(Reply{Done: true, Data: data})
			return
		}
		op, ok := ops[req.Op]
		if !ok {
			w.reply(Reply{Done: true, Error: fmt.Sprintf("worker: unknown op %q", req.Op)})
			return
		}
		w.setDeadline(req.Deadline)
		data, err := op(req)
		if err != nil {
			w.reply(Reply{Done: true, Error: err.Error()})
			return
		}
		w.reply(Reply{Done: true, Data: data})
	}
}

// Options converts the wire options to the engine's.
func (o *CheckOptions) Options() engine.Options {
	if o == nil {
		return engine.Options{}
	}
	return engine.Options{
		Search: o.Search, MaxDepth: o.MaxDepth, MaxStates: o.MaxStates, All: o.All, Exact: o.Exact,
		Steps: o.Steps, Seed: o.Seed, Keep: o.Keep, From: o.From, FromSteps: o.FromSteps,
		StrictPrefix: o.StrictPrefix, SelfCheck: o.SelfCheck, Workers: o.Workers, Goal: o.Goal,
		Members: o.Members,
	}
}

func (w *server) check(req *Request) (*engine.Result, error) {
	m, err := build(req.Model, req.Params)
	if err != nil {
		return nil, err
	}
	opts := req.Check.Options()
	if req.Reproduce != nil {
		opts.Reproduce = &engine.Reproduction{Position: req.Reproduce.Position, Kind: req.Reproduce.Kind, Message: req.Reproduce.Message}
	}
	var cover *coverageRecorder
	if req.Check != nil && req.Check.CoverDir != "" {
		cover = newCoverageRecorder(req.Check.CoverDir)
	}
	var coverErr error
	last := time.Now()
	opts.Progress = func(p engine.Progress) {
		if cover != nil && coverErr == nil {
			coverErr = cover.progress(p.Transitions)
		}
		if now := time.Now(); now.Sub(last) >= time.Second {
			last = now
			w.reply(Reply{Progress: &p})
		}
	}
	opts.Begin = w.pos.set
	opts.Concurrent = w.pos.setConcurrent
	// Breadth-first levels are expanded by several instances of the model (engine/parallel.go).
	opts.Build = func() (*cmc.Model, error) { return build(req.Model, req.Params) }
	res, err := engine.Check(context.Background(), m, opts)
	if err != nil {
		return nil, err
	}
	if cover != nil && coverErr == nil {
		coverErr = cover.snapshot(res.Transitions)
	}
	if coverErr != nil {
		return nil, coverErr
	}
	res.Environment = environmentSummary(m)
	for _, t := range res.Violations {
		t.Params = req.Params
	}
	if res.Walk != nil {
		res.Walk.Params = req.Params
	}
	return res, nil
}

// environmentSummary asks the model's components for a line on the run (env.Peer: its I/O cache's
// statistics), in the model's order.
func environmentSummary(m *cmc.Model) []string {
	var out []string
	for _, c := range m.Components() {
		if s, ok := c.Root.Interface().(interface{ RunSummary() string }); ok {
			out = append(out, c.Name+": "+s.RunSummary())
		}
	}
	return out
}

// setDeadline sets how long one call into user code may take, in seconds (0: the default).
func (w *server) setDeadline(seconds float64) {
	d := defaultDeadline
	if seconds > 0 {
		d = time.Duration(seconds * float64(time.Second))
	}
	w.deadline.Store(int64(d))
}
