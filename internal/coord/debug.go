package coord

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
	"github.com/google/go-dap"
)

// A Debugger is one step of a stored trace running in the user's code under Delve, the Go
// debugger: the worker's debug build replays the steps before it, and the user steps through the
// handler line by line. cmcdap speaks DAP to Delve (`dlv dap`) and relays what the user asks.
// Delve stops twice in code of ours (worker.StepEnter and worker.StepLeave, stepin.go); the
// Debugger handles those stops itself, so its callers see only stops in the user's code and the
// end of the step.
type Debugger struct {
	cmd     *exec.Cmd
	c       *dapClient
	dir     string // holds the step's arguments
	out     Output
	Handler string // the handler's function, as Delve names it
	entered bool   // a stop was inside the handler: a later stop outside it means it returned
	waiting int    // the goroutine waiting in StepEnter
}

// A Stop is where the step stopped: in the user's code (Thread is Delve's goroutine), or at its
// end (Done; Result is "ok" when it reached the stored state, else what went wrong).
type Stop struct {
	Thread int
	Reason string // Delve's: step, breakpoint, function breakpoint, pause...
	Hits   []int  // Delve's breakpoint ids
	Done   bool
	Result string
}

// ErrNoDelve is a machine without Delve.
var ErrNoDelve = errors.New("the Go debugger Delve is not installed: go install github.com/go-delve/delve/cmd/dlv@latest (or set goDebugger to its path)")

// FindDelve returns the dlv to run: path when given, else dlv on PATH, else in GOBIN or
// GOPATH/bin, where go install puts it.
func FindDelve(path string) (string, error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("goDebugger %s: %w", path, err)
		}
		return path, nil
	}
	if p, err := exec.LookPath("dlv"); err == nil {
		return p, nil
	}
	for _, dir := range goBins() {
		p := filepath.Join(dir, "dlv")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", ErrNoDelve
}

// goBins are where go install puts commands: GOBIN, else each GOPATH entry's bin. The go command
// is asked once per process.
var goBins = sync.OnceValue(func() []string {
	out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		return nil
	}
	return goBinDirs(string(out))
})

// goBinDirs reads `go env GOBIN GOPATH`: a line each, the first empty when GOBIN is not set.
func goBinDirs(out string) []string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 {
		return nil
	}
	if lines[0] != "" {
		return []string{lines[0]}
	}
	var dirs []string
	for _, p := range filepath.SplitList(lines[1]) {
		dirs = append(dirs, filepath.Join(p, "bin"))
	}
	return dirs
}

// DebugStep starts the debug build bin (BuildDebug) under dlv, in dir, to run step a.Step of
// a.Trace, and returns once the steps before it have replayed and the worker waits in
// StepEnter. Call Enter next.
func DebugStep(ctx context.Context, dlv, bin, dir string, a worker.StepArgs, out Output) (*Debugger, error) {
	tmp, err := os.MkdirTemp("", "cmc-step-")
	if err != nil {
		return nil, err
	}
	args := filepath.Join(tmp, "step.json")
	a.Trace = slim(a.Trace, a.Step)
	b, err := json.Marshal(a)
	if err == nil {
		err = os.WriteFile(args, b, 0o600)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	d := &Debugger{dir: tmp, out: out}
	started := false
	defer func() {
		if !started {
			d.Close()
		}
	}()
	if err := d.start(ctx, dlv); err != nil {
		return nil, err
	}
	if _, err := d.c.Do(ctx, &dap.InitializeRequest{Request: request("initialize"), Arguments: dap.InitializeRequestArguments{
		ClientID: "cmcdap", AdapterID: "go", PathFormat: "path", LinesStartAt1: true, ColumnsStartAt1: true}}); err != nil {
		return nil, err
	}
	launch, _ := json.Marshal(map[string]any{"request": "launch", "mode": "exec", "program": bin,
		"args": []string{worker.StepFlag, args}, "cwd": dir, "stopOnEntry": false})
	if _, err := d.c.Do(ctx, &dap.LaunchRequest{Request: request("launch"), Arguments: launch}); err != nil {
		return nil, err
	}
	if err := d.functionBreakpoints(ctx); err != nil {
		return nil, err
	}
	if _, err := d.c.Do(ctx, &dap.ConfigurationDoneRequest{Request: request("configurationDone")}); err != nil {
		return nil, err
	}
	st, err := d.wait(ctx)
	if err != nil {
		return nil, err
	}
	if st.Done {
		return nil, fmt.Errorf("step %d: %s", a.Step, st.Result)
	}
	d.waiting, started = st.Thread, true
	return d, nil
}

// slim is what running step n of t needs: the steps up to it, each its event, Choose values and
// hash (not its notes and changes, most of a stored trace's bytes).
func slim(t *engine.Trace, n int) *engine.Trace {
	if t == nil {
		return nil
	}
	out := &engine.Trace{Model: t.Model, Params: t.Params, InitHash: t.InitHash}
	for _, st := range t.Steps[:min(n, len(t.Steps))] {
		s := engine.Step{Proc: st.Proc, Event: st.Event, Hash: st.Hash}
		for _, c := range st.Choices {
			s.Choices = append(s.Choices, engine.Choice{Value: c.Value, N: c.N})
		}
		out.Steps = append(out.Steps, s)
	}
	return out
}

var listening = regexp.MustCompile(`listening at: (\S+)`)

// start runs `dlv dap` on a loopback port and connects to it.
func (d *Debugger) start(ctx context.Context, dlv string) error {
	d.cmd = exec.Command(dlv, "dap", "--listen=127.0.0.1:0")
	d.cmd.Dir = d.dir
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	d.cmd.Stderr = d.cmd.Stdout
	if err := d.cmd.Start(); err != nil {
		return fmt.Errorf("start Delve (%s): %w", dlv, err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addr <- m[1]
				sent = true
				continue
			}
			if d.out != nil {
				d.out("stdout", sc.Text())
			}
		}
		if !sent {
			close(addr)
		}
	}()
	var a string
	select {
	case a = <-addr:
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
		return ctx.Err()
	}
	if a == "" {
		return fmt.Errorf("%s (Delve) did not start its DAP server", dlv)
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", a)
	if err != nil {
		return fmt.Errorf("connect to Delve: %w", err)
	}
	d.c = newDAPClient(conn)
	return nil
}

// functionBreakpoints sets the breakpoints on StepEnter and StepLeave, and once entered the
// handler's.
func (d *Debugger) functionBreakpoints(ctx context.Context) error {
	bps := []dap.FunctionBreakpoint{{Name: worker.StepEnterFunc}, {Name: worker.StepLeaveFunc}}
	if d.Handler != "" {
		bps = append(bps, dap.FunctionBreakpoint{Name: d.Handler})
	}
	_, err := d.c.Do(ctx, &dap.SetFunctionBreakpointsRequest{Request: request("setFunctionBreakpoints"),
		Arguments: dap.SetFunctionBreakpointsArguments{Breakpoints: bps}})
	return err
}

// Enter sets the user's source breakpoints (only now, so the replayed steps did not stop on
// them) and, when atHandler, one on the handler's first line, and runs to the first of them.
func (d *Debugger) Enter(ctx context.Context, source []dap.SetBreakpointsArguments, atHandler bool) (Stop, error) {
	frames, err := d.stack(ctx, d.waiting)
	if err != nil {
		return Stop{}, err
	}
	v, err := d.c.Do(ctx, &dap.EvaluateRequest{Request: request("evaluate"),
		Arguments: dap.EvaluateArguments{Expression: "handler", FrameId: frames[0].Id, Context: "repl"}})
	if err != nil {
		return Stop{}, err
	}
	if d.Handler, err = strconv.Unquote(v.(*dap.EvaluateResponse).Body.Result); err != nil {
		return Stop{}, fmt.Errorf("the handler's name: %w", err)
	}
	for _, a := range source {
		d.SetBreakpoints(ctx, a)
	}
	if atHandler {
		if err := d.functionBreakpoints(ctx); err != nil {
			return Stop{}, err
		}
	}
	return d.Resume(ctx, &dap.ContinueRequest{Request: request("continue"), Arguments: dap.ContinueArguments{ThreadId: d.waiting}})
}

// SetBreakpoints sets one file's breakpoints in Delve and returns what it verified.
func (d *Debugger) SetBreakpoints(ctx context.Context, a dap.SetBreakpointsArguments) ([]dap.Breakpoint, error) {
	r, err := d.c.Do(ctx, &dap.SetBreakpointsRequest{Request: request("setBreakpoints"), Arguments: a})
	if err != nil {
		return nil, err
	}
	return r.(*dap.SetBreakpointsResponse).Body.Breakpoints, nil
}

// Resume sends a request that runs the program (continue, next, stepIn, stepOut) and waits for
// the next stop in the user's code or the end of the step.
func (d *Debugger) Resume(ctx context.Context, req dap.RequestMessage) (Stop, error) {
	if _, err := d.c.Do(ctx, req); err != nil {
		return Stop{}, err
	}
	return d.wait(ctx)
}

// wait waits for the program to stop and handles the stops in cmc's own code: StepLeave ends
// the step; a stop outside the handler after it ran (a step out of it) runs on to StepLeave.
func (d *Debugger) wait(ctx context.Context) (Stop, error) {
	for {
		e, err := d.c.Event(ctx)
		if err != nil {
			return Stop{}, err
		}
		switch e := e.(type) {
		case *dap.OutputEvent:
			d.output(e)
		case *dap.TerminatedEvent, *dap.ExitedEvent:
			return Stop{Done: true, Result: "the worker ended before the step did (see the model's output)"}, nil
		case *dap.StoppedEvent:
			st := Stop{Thread: e.Body.ThreadId, Reason: e.Body.Reason, Hits: e.Body.HitBreakpointIds}
			frames, err := d.stack(ctx, st.Thread)
			if err != nil {
				return Stop{}, err
			}
			switch name := frames[0].Name; {
			case sameFunc(name, worker.StepEnterFunc):
				return st, nil // DebugStep's stop: Enter goes on
			case sameFunc(name, worker.StepLeaveFunc):
				return d.leave(ctx, frames[0])
			case d.inHandler(frames):
				d.entered = true
				return st, nil
			case d.entered:
				// The handler returned: run to StepLeave (no user code runs before it).
				if _, err := d.c.Do(ctx, &dap.ContinueRequest{Request: request("continue"),
					Arguments: dap.ContinueArguments{ThreadId: st.Thread}}); err != nil {
					return Stop{}, err
				}
			default:
				return st, nil // a breakpoint in the enabling condition, before the handler
			}
		}
	}
}

// output passes the program's output on, a line at a time.
func (d *Debugger) output(e *dap.OutputEvent) {
	if d.out != nil && e.Body.Category != "telemetry" {
		for _, line := range strings.Split(strings.TrimRight(e.Body.Output, "\n"), "\n") {
			d.out(outputStream(e.Body.Category), line)
		}
	}
}

func outputStream(category string) string {
	if category == "stderr" {
		return "stderr"
	}
	return "stdout"
}

// leave reads StepLeave's result.
func (d *Debugger) leave(ctx context.Context, f dap.StackFrame) (Stop, error) {
	v, err := d.c.Do(ctx, &dap.EvaluateRequest{Request: request("evaluate"),
		Arguments: dap.EvaluateArguments{Expression: "result", FrameId: f.Id, Context: "repl"}})
	if err != nil {
		return Stop{}, err
	}
	res, err := strconv.Unquote(v.(*dap.EvaluateResponse).Body.Result)
	if err != nil {
		res = v.(*dap.EvaluateResponse).Body.Result
	}
	return Stop{Done: true, Result: res}, nil
}

func (d *Debugger) inHandler(frames []dap.StackFrame) bool {
	return d.handlerFrame(frames) >= 0
}

func (d *Debugger) handlerFrame(frames []dap.StackFrame) int {
	for i, f := range frames {
		if sameFunc(f.Name, d.Handler) {
			return i
		}
	}
	return -1
}

// Frames are the user's frames of a stopped goroutine: from the top down to the handler's (or
// all, before the handler runs), without the engine's and the worker's below it.
func (d *Debugger) Frames(ctx context.Context, thread int) ([]dap.StackFrame, error) {
	frames, err := d.stack(ctx, thread)
	if err != nil {
		return nil, err
	}
	if i := d.handlerFrame(frames); i >= 0 {
		return frames[:i+1], nil
	}
	for i, f := range frames {
		if strings.HasPrefix(f.Name, "engine.") && f.Source != nil && strings.Contains(filepath.ToSlash(f.Source.Path), "/engine/") {
			return frames[:i], nil
		}
	}
	return frames, nil
}

// sameFunc reports whether a frame Delve names (with the last element of its package path:
// "aodv.NewModel.func5") is the function full names ("example.com/x/aodv.NewModel.func5").
func sameFunc(frame, full string) bool {
	return frame == full[strings.LastIndexByte(full, '/')+1:]
}

// stack is a goroutine's stack, as deep as a handler's calls go.
func (d *Debugger) stack(ctx context.Context, thread int) ([]dap.StackFrame, error) {
	r, err := d.c.Do(ctx, &dap.StackTraceRequest{Request: request("stackTrace"),
		Arguments: dap.StackTraceArguments{ThreadId: thread, Levels: 200}})
	if err != nil {
		return nil, err
	}
	frames := r.(*dap.StackTraceResponse).Body.StackFrames
	if len(frames) == 0 {
		return nil, fmt.Errorf("debugger: goroutine %d has no frames", thread)
	}
	return frames, nil
}

// Do relays a request that only reads (stackTrace, scopes, variables, evaluate) and returns
// Delve's response.
func (d *Debugger) Do(ctx context.Context, req dap.RequestMessage) (dap.ResponseMessage, error) {
	return d.c.Do(ctx, req)
}

// Close ends Delve and the worker it runs, and removes the step's files.
func (d *Debugger) Close() {
	if d.c != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		d.c.Do(ctx, &dap.DisconnectRequest{Request: request("disconnect"), Arguments: &dap.DisconnectArguments{TerminateDebuggee: true}})
		cancel()
		d.c.Close()
	}
	if d.cmd != nil && d.cmd.Process != nil {
		d.cmd.Process.Kill()
		d.cmd.Wait()
	}
	os.RemoveAll(d.dir)
}

func request(command string) dap.Request {
	return dap.Request{Command: command}
}
