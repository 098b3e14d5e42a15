// Package cmctest is what tests import to check models: Replay turns a stored counterexample
// into a regression test (cmcdap exports one as a _test.go file with replay.ExportTest).
package cmctest

import (
	"encoding/json"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/replay"
)

// Want is what a replayed trace must show.
type Want int

const (
	// Reproduces: every step reaches the stored state again and the trace ends in its violation
	// (for a trace without one: every step replays). Use it while the bug is there.
	Reproduces Want = iota
	// Fixed: the violation does not happen along the trace any more, because the trace now
	// diverges (the fix changed what the code does) or ends without it. Use it once the bug is
	// fixed, to keep it fixed; the test fails if the violation comes back.
	Fixed
)

// Replay replays trace (an engine.Trace as JSON) on the registered model with the given
// parameters and fails t unless it shows want. The test file must import the package that
// registers the model. When the trace ends in a hang or a crash, its last step runs in a child
// process (this test binary again) with a deadline; see DefaultDeadline.
func Replay(t testing.TB, want Want, model string, params map[string]string, trace string) {
	t.Helper()
	var tr engine.Trace
	if err := json.Unmarshal([]byte(trace), &tr); err != nil {
		t.Fatalf("cmctest: the trace is not an engine.Trace in JSON: %v", err)
	}
	if endsInHangOrCrash(&tr) {
		replayLastStep(t, want, model, params, &tr)
		return
	}
	m, err := cmc.Build(model, params)
	if err != nil {
		t.Fatalf("cmctest: %v", err)
	}
	s, err := replay.Open(m, &tr)
	if s == nil {
		t.Fatalf("cmctest: %v", err)
	}
	defer s.Close()
	sum := s.Summary()
	what := "the trace of " + model
	switch want {
	case Reproduces:
		if !sum.OK() {
			msg := sum.Describe(what)
			if tr.Violation != nil {
				msg += "\nIf you fixed this bug, change cmctest.Reproduces to cmctest.Fixed in this test to keep it fixed, or delete the test."
			}
			t.Fatal(msg)
		}
		t.Log(sum.Describe(what))
	case Fixed:
		if tr.Violation == nil {
			t.Fatalf("cmctest: Fixed needs a trace that ends in a violation; this one has none")
		}
		if sum.Reproduced {
			t.Fatalf("the bug is back: %s", sum.Describe(what))
		}
		t.Logf("the violation does not happen along the trace: %s", sum.Describe(what))
	default:
		t.Fatalf("cmctest: unknown Want %d", want)
	}
}
