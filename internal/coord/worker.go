package coord

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/stackdump"
	"github.com/cmc-go/cmc/worker"
)

// A Worker is a running worker process. Requests and replies travel on descriptors of their own
// (3 and 4 in the worker); its stdout and stderr are the model's output, passed to an Output.
type Worker struct {
	bin    string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader // replies, one per line (see worker.Main on why not a bufio.Scanner)
	crash  *tail         // what the Go runtime printed when the worker crashed (worker.crashFD)
	read   chan struct{} // closed when crash has everything
	output *output
	stdout *stream
	stderr *stream
	pos    string // the position file the worker publishes its running transition in
	mu     sync.Mutex
}

// Start runs the worker binary. The model's output goes to out, a line at a time, at most
// MaxOutputLines per request (nil: Prefixed(os.Stderr)).
func Start(bin string, out Output) (*Worker, error) { return start(bin, nil, out) }

// start is Start with env added to the worker's environment.
func start(bin string, env []string, out Output) (*Worker, error) {
	if out == nil {
		out = Prefixed(os.Stderr)
	}
	f, err := os.CreateTemp("", "cmc-position-*")
	if err != nil {
		return nil, err
	}
	f.Write(make([]byte, worker.PositionSize))
	f.Close()
	w := &Worker{bin: bin, pos: f.Name(), crash: &tail{}, read: make(chan struct{}), output: &output{sink: out}}
	w.stdout = &stream{o: w.output, name: "stdout"}
	w.stderr = &stream{o: w.output, name: "stderr"}
	var pipes [6]*os.File // request r/w, reply r/w, crash r/w
	for i := 0; i < len(pipes); i += 2 {
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			closeAll(pipes[:]...)
			os.Remove(w.pos)
			return nil, fmt.Errorf("start worker: %w", err)
		}
	}
	w.cmd = exec.Command(bin)
	w.cmd.Env = append(append(os.Environ(), "CMC_POSITION="+w.pos), env...)
	w.cmd.ExtraFiles = []*os.File{pipes[0], pipes[3], pipes[5]} // the worker's 3, 4 and 5
	w.cmd.Stdout, w.cmd.Stderr = w.stdout, w.stderr
	// A process the model started may hold stdout open after the worker exits.
	w.cmd.WaitDelay = time.Second
	err = w.cmd.Start()
	closeAll(pipes[0], pipes[3], pipes[5]) // the worker's ends
	if err != nil {
		closeAll(pipes[1], pipes[2], pipes[4])
		os.Remove(w.pos)
		return nil, fmt.Errorf("start worker: %w", err)
	}
	w.in = pipes[1]
	w.out = bufio.NewReaderSize(pipes[2], 1<<20)
	go func() {
		io.Copy(w.crash, pipes[4])
		pipes[4].Close()
		close(w.read)
	}()
	return w, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// Close stops the worker, after passing on the last of its output.
func (w *Worker) Close() {
	w.in.Close()
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
	w.wait()
	w.output.flush()
	os.Remove(w.pos)
}

// wait waits for the process and for all it wrote.
func (w *Worker) wait() {
	w.cmd.Wait()
	<-w.read
	w.stdout.close()
	w.stderr.close()
}

// ErrDied is returned when the worker process ended while serving a request.
type ErrDied struct {
	Crash *worker.Crash
}

func (e *ErrDied) Error() string { return e.Crash.Kind + ": " + e.Crash.Message }

// Call sends a request and waits for its final reply, passing progress replies to progress. A
// cancelled ctx kills the worker. A reply that breaks the protocol is an error, never a result.
func (w *Worker) Call(ctx context.Context, req *worker.Request, progress func(engine.Progress)) (*worker.Reply, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	w.output.begin()
	stop := context.AfterFunc(ctx, func() { w.cmd.Process.Kill() })
	defer stop()
	if _, err := w.in.Write(append(b, '\n')); err != nil {
		return nil, w.died(ctx, nil)
	}
	var crash *worker.Crash
	for {
		line, err := w.out.ReadBytes('\n')
		if err != nil {
			break
		}
		r, err := decodeReply(req.Op, line)
		if err != nil {
			w.cmd.Process.Kill() // its state is unknown: never reuse it
			return nil, err
		}
		switch {
		case r.Crash != nil:
			crash = r.Crash
		case r.Progress != nil:
			if progress != nil {
				progress(*r.Progress)
			}
		case r.Done:
			return r, nil
		}
	}
	return nil, w.died(ctx, crash)
}

// died explains a worker that ended: the hang it reported, or what its position file and crash
// output say.
func (w *Worker) died(ctx context.Context, crash *worker.Crash) error {
	w.wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if crash != nil {
		return &ErrDied{crash}
	}
	b, err := os.ReadFile(w.pos)
	c := &worker.Crash{Kind: "crash", Message: w.exitMessage()}
	if err == nil {
		pos, running, concurrent := worker.ReadPosition(b)
		switch {
		case running:
			c.Position = pos
			return &ErrDied{c}
		case concurrent:
			c.Concurrent = true // the workers of a parallel search were running several transitions
			return &ErrDied{c}
		}
	}
	return errors.New("worker died outside any transition: " + c.Message)
}

// exitMessage says how the worker ended: the Go runtime's fatal error with the model's frames
// where it happened, the signal that killed it, or the status it exited with.
func (w *Worker) exitMessage() string {
	state := w.cmd.ProcessState
	// The runtime's first lines (which fatal error; a stack overflow's size) reach stderr only;
	// the goroutine dump reaches the crash descriptor too.
	report := strings.TrimSpace(strings.Join(w.stderr.fatal, "\n") + "\n" + w.crash.String())
	if report != "" {
		return "the worker crashed: " + crashSummary(report)
	}
	if state == nil {
		return "the worker ended"
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		msg := fmt.Sprintf("the worker was killed by signal %s (%d)", signalName(ws.Signal()), int(ws.Signal()))
		if ws.Signal() == syscall.SIGKILL {
			msg += ": by the system's out-of-memory killer or another process? (the worker's own -memory limit is reported as such)"
		}
		return msg
	}
	return fmt.Sprintf("the worker exited (%s): the model's code called os.Exit(%d)", state, state.ExitCode())
}

// crashSummary is the fatal error's first line and where the model's code was: the goroutine
// whose stack has the model's frames, not the runtime's preamble.
func crashSummary(report string) string {
	first, detail := report, ""
	for _, l := range strings.Split(report, "\n") {
		if d, ok := strings.CutPrefix(l, "runtime: goroutine "); ok && detail == "" {
			detail = " (goroutine " + d + ")" // stack exceeds N-byte limit
		}
		if strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ") {
			first = l
			break
		}
	}
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	first += detail
	if len(first) > 400 {
		first = first[:400] + "…"
	}
	for _, g := range stackdump.Parse(report) {
		if at := g.Where(3); at != "" {
			return first + " " + at
		}
	}
	return first
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	}
	return s.String()
}

// tail keeps the first 64 KiB of a stream (a fatal error's first lines matter most).
type tail struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.b.Len() < 64<<10 {
		t.b.Write(p)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
