package dap

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-dap"

	"github.com/cmc-go/cmc/internal/dap/daptest"
)

// TestCheckToGoal: a launch with a goal scenario and no violation on the way stops at the end of
// the trace to the goal, as "goal", not as an exception, so the user steps through how it happens.
func TestCheckToGoal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	c := start(t, Config{})
	initialize(t, c)
	// 2 >> launch, << initialized, << launch
	c.LaunchRequest(map[string]any{"program": "../../examples/aodv", "model": "AODVChain", "params": map[string]any{"nodes": 3},
		"search": "best", "goal": "route found", "db": db})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	// 3 >> configurationDone, << configurationDone, << progress..., << stopped goal
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	e := daptest.ExpectStopped(t, c, "goal")
	if e.Body.Description != `Scenario "route found" reached` {
		t.Errorf("stop description %q", e.Body.Description)
	}
	frames := stack(t, c, e.Body.ThreadId)
	if len(frames) != 7 { // the initial state and 6 steps
		t.Errorf("stack %q, want 7 frames", frameNames(frames))
	}
	out := c.Output()
	for _, want := range []string{"(best)", "stopped at the goal", `scenario "route found": reached`, "no violation"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary %q lacks %q", out, want)
		}
	}
}
