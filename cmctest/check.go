package cmctest

import (
	"context"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/tracefmt"
)

// Check explores the model in this test process and fails t, printing each violation's trace
// readably, when the model violates a property or cannot be checked. It returns the result for
// further assertions (state counts, completeness).
//
// Unless opts.SelfCheck says otherwise, every transition is self-checked (engine.SelfCheckAll): a
// test is where a capture fault or nondeterminism should show first. Set opts.SelfCheck for a
// large model whose self-check would take too long.
//
// A check as a test runs user code in the test process: a handler that never returns hangs the
// test until go test's -timeout, whose goroutine dump shows the handler. cmcdap check runs the
// same check in a worker process and reports hangs and crashes as findings with traces.
func Check(t testing.TB, m *cmc.Model, opts engine.Options) *engine.Result {
	t.Helper()
	res := run(t, m, opts)
	for _, tr := range res.Violations {
		t.Errorf("%s", describe(tr))
	}
	return res
}

// Violates explores the model and fails t unless it finds a violation; it returns the first
// violation's trace. Use it to pin a known bug (and its trace length) in a test.
func Violates(t testing.TB, m *cmc.Model, opts engine.Options) *engine.Trace {
	t.Helper()
	res := run(t, m, opts)
	if len(res.Violations) == 0 {
		t.Fatalf("model %s: no violation in %d states (complete: %v)", m.Name(), res.States, res.Complete)
	}
	return res.Violations[0]
}

func run(t testing.TB, m *cmc.Model, opts engine.Options) *engine.Result {
	t.Helper()
	if opts.SelfCheck == 0 {
		opts.SelfCheck = engine.SelfCheckAll
	}
	res, err := engine.Check(context.Background(), m, opts)
	if err != nil {
		t.Fatalf("model %s cannot be checked: %v", m.Name(), err)
	}
	return res
}

func describe(tr *engine.Trace) string {
	var b strings.Builder
	v := tr.Violation
	b.WriteString("violation: " + v.Kind)
	if v.Name != "" {
		b.WriteString(" " + v.Name)
	}
	b.WriteString(": " + v.Message + "\n")
	tracefmt.Write(&b, tr)
	return b.String()
}
