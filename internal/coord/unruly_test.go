package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

var unruly struct {
	once sync.Once
	bin  string
	err  error
}

// unrulyWorker builds testdata/unruly once per test binary.
func unrulyWorker(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	unruly.once.Do(func() {
		ctx := context.Background()
		p, err := Resolve(ctx, ".", "./testdata/unruly")
		if err != nil {
			unruly.err = err
			return
		}
		unruly.bin, unruly.err = Build(ctx, p)
	})
	if unruly.err != nil {
		t.Fatal(unruly.err)
	}
	return unruly.bin
}

// unrulyLine is the line of testdata/unruly/unruly.go that holds text.
func unrulyLine(t *testing.T, text string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/unruly/unruly.go")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			abs, _ := filepath.Abs("testdata/unruly/unruly.go")
			return fmt.Sprintf("%s:%d", abs, i+1)
		}
	}
	t.Fatalf("unruly.go has no line with %q", text)
	return ""
}

// collect is an Output that keeps the lines as "stream: line".
type collect struct {
	mu    sync.Mutex
	lines []string
}

func (c *collect) out(stream, line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, stream+": "+line)
}

func check(t *testing.T, model string, opts worker.CheckOptions, out Output) (*engine.Result, error) {
	t.Helper()
	if opts.Deadline == 0 {
		opts.Deadline = 1
	}
	return Check(context.Background(), unrulyWorker(t), &worker.Request{Model: model, Check: &opts}, nil, out)
}

// TestModelOutput: what handlers print with fmt, log and slog reaches the Output, lines that look
// like replies included, and the check's result is untouched by them.
func TestModelOutput(t *testing.T) {
	var c collect
	// The self-check runs handlers again, and their output with them: off, to count one run's.
	res, err := check(t, "Print", worker.CheckOptions{SelfCheck: -1}, c.out)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Violations) != 0 || res.States != 4 {
		t.Fatalf("result: complete %v, %d violations, %d states; want complete, none, 4", res.Complete, len(res.Violations), res.States)
	}
	// log and slog write a date first; compare from the message on.
	date := regexp.MustCompile(`^(stderr: )\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `)
	var got []string
	for _, l := range c.lines {
		got = append(got, date.ReplaceAllString(l, "$1"))
	}
	want := []string{
		"stdout: fmt says 2",
		"stderr: log says 2",
		"stderr: INFO slog says n=2",
		"stderr: stderr says 2",
		`stdout: {"done":true}`,
		`stdout: {"done":true,"result":{"complete":true}}`,
	}
	// stdout and stderr are two pipes: order is kept within each, not across.
	if g, w := filter(got, "stdout"), filter(want, "stdout"); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("stdout lines:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	if g, w := filter(got, "stderr"), filter(want, "stderr"); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("stderr lines:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

func filter(lines []string, stream string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, stream+": ") {
			out = append(out, l)
		}
	}
	return out
}

// TestModelOutputCap: a handler printing 1,000 lines shows MaxOutputLines of them and one line
// counting the rest.
func TestModelOutputCap(t *testing.T) {
	var c collect
	if _, err := check(t, "Chatty", worker.CheckOptions{SelfCheck: -1}, c.out); err != nil {
		t.Fatal(err)
	}
	if len(c.lines) != MaxOutputLines+1 {
		t.Fatalf("%d lines; want %d and a summary", len(c.lines), MaxOutputLines)
	}
	if c.lines[0] != "stdout: line 0" || c.lines[MaxOutputLines-1] != fmt.Sprintf("stdout: line %d", MaxOutputLines-1) {
		t.Errorf("first and last lines shown: %q, %q", c.lines[0], c.lines[MaxOutputLines-1])
	}
	if got, want := c.lines[MaxOutputLines], fmt.Sprintf("stderr: ... (%d more lines suppressed)", 1000-MaxOutputLines); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// TestMalformedReplies: a reply the protocol does not allow is an error, never a result.
func TestMalformedReplies(t *testing.T) {
	for _, c := range []struct {
		op, line, err string // err "": accepted
	}{
		{"check", `{"done":true,"result":{"complete":true}}`, ""},
		{"check", `{"done":true,"error":"model X: no"}`, ""},
		{"check", `{"progress":{"states":3}}`, ""},
		{"check", `{"crash":{"kind":"hang","message":"m","state":1,"event":0,"attempt":0}}`, ""},
		{"models", `{"done":true}`, ""},
		{"models", `{"done":true,"models":["A"]}`, ""},
		{"replay.close", `{"done":true,"data":{}}`, ""},
		{"check", `{"done":true}`, "a finished check with neither a result nor an error"},
		{"check", `{"done":true,"result":null}`, "a finished check with neither a result nor an error"},
		{"check", `{"done":true,"error":"e","result":{}}`, "both an error and a result"},
		{"check", `{"done":true,"progress":{}}`, "want exactly one of progress, crash and done"},
		{"check", `{}`, "want exactly one of progress, crash and done"},
		{"check", `{"progress":{},"result":{}}`, "a result before done"},
		{"check", `{"done":true,"result":{},"surprise":1}`, `unknown field "surprise"`},
		{"check", `fmt says 2`, "invalid character"},
		{"check", `{"done":true,"result":{}} {"done":true}`, "more than one JSON value"},
		{"models", `{"done":true,"data":[]}`, "a list of models that is not one"},
		{"replay.open", `{"done":true}`, "neither data nor an error"},
	} {
		_, err := decodeReply(c.op, []byte(c.line+"\n"))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s %s: %v", c.op, c.line, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s %s: error %v; want one containing %q", c.op, c.line, err, c.err)
		}
	}
}

// TestUnrulyFindings: each way a handler can escape a check becomes a finding at the step that
// did it, within the deadline.
func TestUnrulyFindings(t *testing.T) {
	for _, c := range []struct {
		model string
		opts  worker.CheckOptions
		kind  string
		msg   string // the message contains it; LINE: the line of unruly.go holding line
		line  string
	}{
		{"Goexit", worker.CheckOptions{}, "crash", "called runtime.Goexit at LINE (t.Fatal or t.FailNow in model code?)", `model("Goexit"`},
		{"Block", worker.CheckOptions{}, "hang", "the handler did not return within 1s: blocked on channel (chan receive) at LINE", "<-never // blocks forever"},
		{"Leak", worker.CheckOptions{}, "goroutine-leak", "handler p.bad returned but left 1 goroutine(s) running: goroutine ", "go func() { <-never }()"},
		{"Killed", worker.CheckOptions{}, "crash", "the worker was killed by signal SIGKILL (9): by the system's out-of-memory killer or another process?", ""},
		{"Hoard", worker.CheckOptions{Memory: 64 << 20}, "crash", "memory limit 64 MiB exceeded: ", ""},
	} {
		t.Run(c.model, func(t *testing.T) {
			res, err := check(t, c.model, c.opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Violations) != 1 {
				t.Fatalf("%d violations", len(res.Violations))
			}
			tr := res.Violations[0]
			msg := c.msg
			if c.line != "" {
				msg = strings.ReplaceAll(msg, "LINE", unrulyLine(t, c.line))
			}
			if v := tr.Violation; v.Kind != c.kind || !strings.Contains(v.Message, msg) {
				t.Fatalf("violation %s: %s\nwant %s containing %q", v.Kind, v.Message, c.kind, msg)
			}
			if c.model == "Leak" && !strings.Contains(tr.Violation.Message, "created at "+unrulyLine(t, c.line)+", blocked on channel (chan receive)") {
				t.Errorf("leak message %q does not say where the goroutine was created and that it waits on a channel", tr.Violation.Message)
			}
			var steps []string
			for _, s := range tr.Steps {
				steps = append(steps, s.Proc+"."+s.Event)
			}
			if got := strings.Join(steps, " "); got != "p.inc p.inc p.bad" {
				t.Fatalf("trace %s; want p.inc p.inc p.bad", got)
			}
		})
	}
}

// TestUnrulyParallel: a crash or hang while a parallel search's workers run several handlers at
// once is traced to the transition the search, on one goroutine, meets first; a crash that only
// instances running at once cause leaves the search's result as one goroutine finds it.
func TestUnrulyParallel(t *testing.T) {
	// Depth-first, a helper runs part of each state's events (engine/forked.go): the same crash,
	// hang or Goexit is found, with the depth-first search's own trace to it (want: its last step).
	block := "the handler did not return within 1s: blocked on channel (chan receive) at " + unrulyLine(t, "blocks forever, on a parallel")
	for _, c := range []struct{ search, model, kind, msg, want string }{
		{"bfs", "WideKilled", "crash", "the worker was killed by signal SIGKILL (9)", "q.set[57] p.inc[] p.inc[] p.bad[]"},
		{"bfs", "WideBlock", "hang", block, "q.set[57] p.inc[] p.inc[] p.bad[]"},
		{"dfs", "WideKilled", "crash", "the worker was killed by signal SIGKILL (9)", "p.bad[]"},
		{"dfs", "WideBlock", "hang", block, "p.bad[]"},
		{"dfs", "Goexit", "crash", "called runtime.Goexit at " + unrulyLine(t, `model("Goexit"`), "p.bad[]"},
	} {
		name := c.model
		if c.search == "dfs" {
			name = "dfs/" + c.model
		}
		t.Run(name, func(t *testing.T) {
			res, err := check(t, c.model, worker.CheckOptions{Workers: 2, SelfCheck: -1, Search: c.search}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Violations) != 1 {
				t.Fatalf("%d violations", len(res.Violations))
			}
			tr := res.Violations[0]
			if v := tr.Violation; v.Kind != c.kind || !strings.Contains(v.Message, c.msg) {
				t.Fatalf("violation %s: %s\nwant %s containing %q", v.Kind, v.Message, c.kind, c.msg)
			}
			var steps []string
			for _, s := range tr.Steps {
				steps = append(steps, fmt.Sprint(s.Proc, ".", s.Event, s.Values()))
			}
			if got := strings.Join(steps, " "); c.search == "bfs" && got != c.want || !strings.HasSuffix(got, c.want) {
				t.Fatalf("trace %s; want %s", got, c.want)
			}
		})
	}
	t.Run("Racy", func(t *testing.T) {
		res, err := check(t, "Racy", worker.CheckOptions{Workers: 2, SelfCheck: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Violations) != 0 || !res.Complete || res.States != 404 {
			t.Fatalf("%d violations, complete %v, %d states; want none, complete, 404", len(res.Violations), res.Complete, res.States)
		}
		if !strings.Contains(res.Rerun, "the parallel search crashed (the worker was killed by signal SIGKILL (9)") {
			t.Fatalf("rerun note %q", res.Rerun)
		}
	})
}

// TestUnrulyNoHang: closing os.Stdout is harmless, and a builder that loops is an error naming
// the line within the deadline; the models request never runs builders.
func TestUnrulyNoHang(t *testing.T) {
	res, err := check(t, "CloseStdout", worker.CheckOptions{}, nil)
	if err != nil || !res.Complete || len(res.Violations) != 0 {
		t.Fatalf("CloseStdout: %v, %+v; want a complete check with no violation", err, res)
	}
	_, err = check(t, "LoopBuilder", worker.CheckOptions{}, nil)
	want := "the builder of model LoopBuilder did not return within 1s: still running (an infinite loop?) at " + unrulyLine(t, "if n < 0 {")
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("LoopBuilder: %v\nwant an error starting %q", err, want)
	}
	models, err := Models(context.Background(), unrulyWorker(t), nil)
	if err != nil || !strings.Contains(strings.Join(models, ","), "LoopBuilder") {
		t.Fatalf("models: %v %v", models, err)
	}
}

// TestUnrulyReplay: replaying a trace whose last step calls runtime.Goexit or blocks (as the
// debugger does for heap graphs) is an error or a hang report, not a worker that never answers.
func TestUnrulyReplay(t *testing.T) {
	for _, c := range []struct{ model, want string }{
		{"Goexit", "replay.open: the model's code called runtime.Goexit at " + unrulyLine(t, `model("Goexit"`)},
		{"Block", "hang: the handler did not return within 1s: blocked on channel (chan receive) at " + unrulyLine(t, "<-never // blocks forever")},
	} {
		res, err := check(t, c.model, worker.CheckOptions{}, nil)
		if err != nil || len(res.Violations) != 1 {
			t.Fatalf("%s: %v", c.model, err)
		}
		tr := *res.Violations[0]
		tr.Violation = nil // so replay runs the last step
		w, err := Start(unrulyWorker(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(worker.ReplayOpenArgs{Trace: &tr})
		rep, err := w.Call(context.Background(), &worker.Request{Op: "replay.open", Deadline: 1, Args: args}, nil)
		w.Close()
		if err == nil && rep.Error != "" {
			err = errors.New(rep.Error)
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("replay %s: %v\nwant an error starting %q", c.model, err, c.want)
		}
	}
}

// TestOverflowSaysWhere: a stack overflow's finding shows the model's recursing frames, not the
// runtime's preamble.
func TestOverflowSaysWhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	ctx := context.Background()
	p, err := Resolve(ctx, ".", "./testdata/badmodels")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Build(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(ctx, bin, &worker.Request{Model: "Overflow", Check: &worker.CheckOptions{Deadline: 1}}, nil, nil)
	if err != nil || len(res.Violations) != 1 {
		t.Fatalf("%v, %+v", err, res)
	}
	abs, _ := filepath.Abs("testdata/badmodels/bad.go")
	want := "the worker crashed: fatal error: stack overflow (goroutine stack exceeds 67108864-byte limit) at " + abs + ":28 (github.com/cmc-go/cmc/internal/coord/testdata/badmodels.recurse), called from " + abs + ":28"
	if got := res.Violations[0].Violation.Message; !strings.HasPrefix(got, want) || strings.Contains(got, "runtime stack") {
		t.Errorf("overflow message:\n%s\nwant it to start with\n%s", got, want)
	}
}
