package cmctest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/twophase"
)

func TestCheckPasses(t *testing.T) {
	res := Check(t, twophase.New(3), engine.Options{})
	if res.States != 288 || !res.Complete {
		t.Fatalf("TwoPhase RM=3: %d states, complete %v; want 288, true", res.States, res.Complete)
	}
}

// TestCheckFails runs Check on a violating model against a recording testing.TB and checks the
// failure message carries the readable trace.
func TestCheckFails(t *testing.T) {
	rec := &recorder{TB: t}
	Check(rec, badModel(), engine.Options{})
	if !rec.failed || !strings.Contains(rec.msg, "violation: invariant not2: N is 2") || !strings.Contains(rec.msg, "p.N") {
		t.Fatalf("failed=%v message:\n%s", rec.failed, rec.msg)
	}
	if tr := Violates(t, badModel(), engine.Options{}); len(tr.Steps) != 1 {
		t.Fatalf("shortest trace has %d steps, want 1 (Choose 1: N += 2)", len(tr.Steps))
	}
}

func badModel() *cmc.Model {
	x := &struct{ N int }{}
	m := cmc.NewModel("bad")
	m.Process("p", x).On("inc", func() { x.N += 1 + cmc.Choose(2) }, cmc.When(func() bool { return x.N < 3 }))
	m.Invariant("not2", func() error {
		if x.N == 2 {
			return errorString("N is 2")
		}
		return nil
	})
	return m
}

type errorString string

func (e errorString) Error() string { return string(e) }

type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg += sprintf(format, args...)
}

func (r *recorder) Helper() {}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
