package cmctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/replay"
)

// A trace that ends in a hang or a crash cannot have its last step run in the test process: it
// would hang the test until go test's -timeout, or kill it. Replay runs the steps before it here,
// proving their states, and the last step in a child process, this test binary run again on
// this one test with lastStepEnv naming it. The child replays the whole trace and says so on
// stdout when the last step returned; a child still running at the deadline hung, and a child
// that ended without saying so crashed.
const (
	lastStepEnv    = "CMCTEST_LAST_STEP"
	deadlineEnv    = "CMCTEST_DEADLINE"
	returnedMarker = "cmctest: the last step returned"
	errorMarker    = "cmctest: the last step could not run: "
)

// DefaultDeadline is how long the last step of a hang trace may run before it counts as hung:
// cmcdap check's default -deadline. $CMCTEST_DEADLINE (a Go duration, e.g. 2s) overrides it.
const DefaultDeadline = 10 * time.Second

// endsInHangOrCrash reports whether the trace's last step hung or crashed during the search.
func endsInHangOrCrash(tr *engine.Trace) bool {
	v := tr.Violation
	return v != nil && (v.Kind == "hang" || v.Kind == "crash") && len(tr.Steps) > 0
}

// replayLastStep is Replay for a trace that ends in a hang or a crash.
func replayLastStep(t testing.TB, want Want, model string, params map[string]string, tr *engine.Trace) {
	t.Helper()
	if os.Getenv(lastStepEnv) == t.Name() {
		runLastStep(model, params, tr)
		return
	}
	m, err := cmc.Build(model, params)
	if err != nil {
		t.Fatalf("cmctest: %v", err)
	}
	s, err := replay.Open(m, tr) // stops before the last step
	if s == nil {
		t.Fatalf("cmctest: %v", err)
	}
	sum := s.Summary()
	s.Close()
	what := "the trace of " + model
	if sum.Divergence != nil {
		if want == Reproduces {
			t.Fatalf("%s\nIf you fixed this bug, change cmctest.Reproduces to cmctest.Fixed in this test to keep it fixed, or delete the test.", sum.Describe(what))
		}
		t.Logf("the %s cannot happen along the trace any more: %s", tr.Violation.Kind, sum.Describe(what))
		return
	}
	last := tr.Steps[len(tr.Steps)-1]
	step := fmt.Sprintf("step %d (%s, %s)", len(tr.Steps), last.Proc, last.Event)
	bug, err := runChild(t)
	if err != nil {
		t.Fatalf("cmctest: %v", err)
	}
	switch {
	case bug != "" && want == Fixed:
		t.Fatalf("the bug is still there: replayed %d steps of %s, then %s %s (the trace ends in %s: %s)",
			len(tr.Steps)-1, what, step, bug, tr.Violation.Kind, tr.Violation.Message)
	case bug != "":
		t.Logf("replayed %d steps of %s, then %s %s, as the trace records", len(tr.Steps)-1, what, step, bug)
	case want == Reproduces:
		t.Fatalf("the %s no longer happens: %s returns now\nIf you fixed this bug, change cmctest.Reproduces to cmctest.Fixed in this test to keep it fixed, or delete the test.",
			tr.Violation.Kind, step)
	default:
		t.Logf("the %s no longer happens: %s of %s returns now", tr.Violation.Kind, step, what)
	}
}

// runChild runs this test again in a child process with a deadline and returns what the last
// step did: "" it returned, else how it hung or crashed.
func runChild(t testing.TB) (bug string, err error) {
	if !testing.Testing() {
		return "", fmt.Errorf("a trace that ends in a hang or a crash replays only in a test (go test)")
	}
	d, err := deadline(t)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+runPattern(t.Name()), "-test.count=1", "-test.timeout=0")
	cmd.Env = append(os.Environ(), lastStepEnv+"="+t.Name())
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	out := stdout.String()
	if i := strings.Index(out, errorMarker); i >= 0 {
		msg, _, _ := strings.Cut(out[i+len(errorMarker):], "\n")
		return "", fmt.Errorf("%s", msg)
	}
	switch {
	case strings.Contains(out, returnedMarker):
		return "", nil
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Sprintf("hung: it did not return within %s", d), nil
	case runErr != nil:
		return fmt.Sprintf("crashed the test process (%v)%s", runErr, crashLine(stderr.String()+out)), nil
	}
	return "ended the test process without returning (os.Exit(0)?)", nil
}

// runLastStep is the child: it replays the whole trace, running the last step too, and says on
// stdout that it returned. A hang or a crash never gets there.
func runLastStep(model string, params map[string]string, tr *engine.Trace) {
	m, err := cmc.Build(model, params)
	if err != nil {
		fmt.Println(errorMarker + oneLine(err.Error()))
		return
	}
	run := *tr
	run.Violation = nil // so replay runs the last step instead of stopping before it
	s, err := replay.Open(m, &run)
	if s == nil {
		fmt.Println(errorMarker + oneLine(err.Error()))
		return
	}
	s.Close()
	fmt.Println(returnedMarker)
}

// deadline is how long the child may run: DefaultDeadline or $CMCTEST_DEADLINE, and no longer
// than the test has left.
func deadline(t testing.TB) (time.Duration, error) {
	d := DefaultDeadline
	if s := os.Getenv(deadlineEnv); s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d <= 0 {
			return 0, fmt.Errorf("$%s=%q is not a positive duration: set it like %s=2s", deadlineEnv, s, deadlineEnv)
		}
	}
	if td, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := td.Deadline(); ok && time.Until(end) < d+time.Second {
			d = max(time.Until(end)-time.Second, time.Second)
		}
	}
	return d, nil
}

// runPattern is a -test.run pattern that matches the test named name and no other.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// crashLine is the runtime's line saying why the child died, if it printed one.
func crashLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ") {
			return ": " + strings.TrimSpace(l)
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
