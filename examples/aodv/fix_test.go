package aodv

import (
	"context"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
)

// TestFixFromTheLoop: the fix, checked from states of the loop's trace, as a user re-checks a
// bookmark after fixing the code. From step 12 (the stale RERR just delivered; the fixed code
// ignores it) no violation is reachable; from step 14 the trace no longer replays (step 13 takes
// a packet the fixed code never sent), and the check says so instead of checking something else.
func TestFixFromTheLoop(t *testing.T) {
	buggy, err := cmc.Build("AODVSpecBug", nil)
	if err != nil {
		t.Fatal(err)
	}
	mc, init, err := engine.NewMachine(buggy)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, _, err := mc.Record(init, shortestLoop)
	mc.Close()
	if err != nil {
		t.Fatal(err)
	}
	check := func(steps int) (*engine.Result, error) {
		fixed, err := cmc.Build("AODV", nil)
		if err != nil {
			t.Fatal(err)
		}
		return engine.Check(context.Background(), fixed, engine.Options{From: tr, FromSteps: steps})
	}
	res, err := check(12)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Violations) != 0 || res.States != 30 || !strings.Contains(res.PrefixNote, "from step 12") {
		t.Errorf("from step 12: %d states, complete %v, %d violations, note %q; want 30, complete, none, the states differ from step 12",
			res.States, res.Complete, len(res.Violations), res.PrefixNote)
	}
	if _, err := check(14); err == nil || !strings.Contains(err.Error(), "step 13") {
		t.Errorf("from step 14: %v; want the prefix to stop replaying at step 13", err)
	}
}
