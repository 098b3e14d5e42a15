package coord

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/worker"
)

// TestFindings builds a package whose handlers hang, exit, overflow the stack and panic, and
// checks each becomes a violation with a trace that ends at the bad step.
func TestFindings(t *testing.T) {
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
	models, err := Models(ctx, bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(models, ","); got != "Exit,Hang,Overflow,Panic" {
		t.Fatalf("models = %s", got)
	}
	for _, c := range []struct{ model, kind, msg string }{
		{"Hang", "hang", "did not return within 1s"},
		{"Exit", "crash", "exit status 7"},
		{"Overflow", "crash", "stack overflow"},
		{"Panic", "panic", "boom"},
	} {
		t.Run(c.model, func(t *testing.T) {
			res, err := Check(ctx, bin, &worker.Request{Model: c.model, Check: &worker.CheckOptions{Deadline: 1}}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Violations) != 1 {
				t.Fatalf("%d violations", len(res.Violations))
			}
			tr := res.Violations[0]
			v := tr.Violation
			if v.Kind != c.kind || !strings.Contains(v.Message, c.msg) {
				t.Fatalf("violation %s: %s; want %s containing %q", v.Kind, v.Message, c.kind, c.msg)
			}
			var steps []string
			for _, s := range tr.Steps {
				steps = append(steps, s.Proc+"."+s.Event)
			}
			if got := strings.Join(steps, " "); got != "p.inc p.inc p.bad" {
				t.Fatalf("trace %s; want p.inc p.inc p.bad", got)
			}
			if last := tr.Steps[len(tr.Steps)-1]; filepath.Base(strings.Split(last.Site, ":")[0]) != "bad.go" {
				t.Errorf("last step site %s", last.Site)
			}
			if c.model == "Hang" {
				replayHangs(t, bin, tr)
			}
		})
	}
}

// replayHangs: a trace whose step now hangs (here: the hang's trace with its verdict taken
// away, so replay runs the last step instead of stopping before it), replayed in a worker as the
// debugger does for heap graphs: the watchdog ends the worker with a hang report, not silence.
func replayHangs(t *testing.T, bin string, hang *engine.Trace) {
	tr := *hang
	tr.Violation = nil
	w, err := Start(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	args, _ := json.Marshal(worker.ReplayOpenArgs{Trace: &tr})
	_, err = w.Call(context.Background(), &worker.Request{Op: "replay.open", Deadline: 1, Args: args}, nil)
	var died *ErrDied
	if !errors.As(err, &died) || died.Crash.Kind != "hang" || !strings.Contains(died.Crash.Message, "did not return within 1s") {
		t.Fatalf("replaying the hang: %v; want the worker to report a hang within 1s", err)
	}
}
