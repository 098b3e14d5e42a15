package coord

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

// A Worker is a running worker process.
type Worker struct {
	bin    string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader // replies, one per line (see worker.Main on why not a bufio.Scanner)
	stderr *tail
	pos    string // the position file the worker publishes its running transition in
	mu     sync.Mutex
}

// Start runs the worker binary.
func Start(bin string) (*Worker, error) {
	f, err := os.CreateTemp("", "cmc-position-*")
	if err != nil {
		return nil, err
	}
	f.Write(make([]byte, 32))
	f.Close()
	w := &Worker{bin: bin, pos: f.Name(), stderr: &tail{}}
	w.cmd = exec.Command(bin)
	w.cmd.Env = append(os.Environ(), "CMC_POSITION="+w.pos)
	w.cmd.Stderr = w.stderr
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.out = bufio.NewReaderSize(out, 1<<20)
	if err := w.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	return w, nil
}

// Close stops the worker.
func (w *Worker) Close() {
	w.in.Close()
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
	w.cmd.Wait()
	os.Remove(w.pos)
}

// ErrDied is returned when the worker process ended while serving a request.
type ErrDied struct {
	Crash *worker.Crash
}

func (e *ErrDied) Error() string { return e.Crash.Kind + ": " + e.Crash.Message }

// Call sends a request and waits for its final reply, passing progress replies to progress. A
// cancelled ctx kills the worker.
func (w *Worker) Call(ctx context.Context, req *worker.Request, progress func(engine.Progress)) (*worker.Reply, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
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
		var r worker.Reply
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("worker: bad reply %.80q: %w", line, err)
		}
		switch {
		case r.Crash != nil:
			crash = r.Crash
		case r.Progress != nil:
			if progress != nil {
				progress(*r.Progress)
			}
		case r.Done:
			return &r, nil
		}
	}
	return nil, w.died(ctx, crash)
}

// died explains a worker that ended: the hang it reported, or what its position file and stderr
// say.
func (w *Worker) died(ctx context.Context, crash *worker.Crash) error {
	w.cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if crash != nil {
		return &ErrDied{crash}
	}
	b, err := os.ReadFile(w.pos)
	c := &worker.Crash{Kind: "crash", Message: w.exitMessage()}
	if err == nil && len(b) >= 32 && binary.LittleEndian.Uint64(b[24:]) == 1 {
		c.State = int64(binary.LittleEndian.Uint64(b[0:]))
		c.Event = int(binary.LittleEndian.Uint64(b[8:]))
		c.Attempt = int(binary.LittleEndian.Uint64(b[16:]))
		return &ErrDied{c}
	}
	return errors.New("worker died outside any transition: " + c.Message)
}

func (w *Worker) exitMessage() string {
	state := w.cmd.ProcessState
	msg := strings.TrimSpace(w.stderr.String())
	// The first line of a Go fatal error says what happened; the rest is goroutine dumps.
	if i := strings.Index(msg, "\n\ngoroutine "); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 400 {
		msg = msg[:400] + "…"
	}
	if msg == "" && state != nil {
		msg = "the worker exited (" + state.String() + "): the handler called os.Exit?"
	} else if state != nil {
		msg = "the worker exited (" + state.String() + "): " + msg
	}
	return msg
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
