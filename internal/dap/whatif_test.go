package dap

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
)

// TestWhatIf is the wire transcript of asking what step 17 of the AODV loop (A receives B's stale
// RERR, the only packet for A: no Choose) could have done instead: cmc/alternatives lists the
// other enabled events (B, C and D each have a packet to receive); cmc/branch stores the trace
// that takes the first, derived from the loop's ("what if step 17: …"), and the session opens it
// with cmc/openTrace: its step 17 is B's. (examples/aodv/branch_test.go branches on a Choose.)
func TestWhatIf(t *testing.T) {
	c, _, _ := openAODV(t, map[string]any{"program": aodvDir()})

	c.Send("cmc/alternatives", map[string]any{"step": 17})
	var alts alternativesBody
	daptest.ExpectCustom(t, c, "cmc/alternatives", &alts)
	var whats []string
	for _, a := range alts.Alternatives {
		whats = append(whats, a.What)
	}
	t.Logf("alternatives at step 17: %q", whats)
	if alts.Step != 17 || strings.Join(whats, "; ") != "B.receive instead; C.receive instead; D.receive instead" {
		t.Fatalf("alternatives: %q", whats)
	}

	c.Send("cmc/branch", map[string]any{"step": 17, "alternative": alts.Alternatives[0]})
	var b branchBody
	daptest.ExpectCustom(t, c, "cmc/branch", &b)
	if b.Trace < 2 || b.Steps != 17 {
		t.Fatalf("branch: %+v", b)
	}
	c.Send("cmc/traces", nil)
	var ts tracesBody
	daptest.ExpectCustom(t, c, "cmc/traces", &ts)
	found := false
	for _, ti := range ts.Traces {
		found = found || (ti.ID == b.Trace && ti.From == ts.Current && ti.How == "what if step 17: "+whats[0])
	}
	if !found {
		t.Fatalf("the branch is not stored as derived from trace %d: %+v", ts.Current, ts.Traces)
	}

	c.Send("cmc/openTrace", map[string]any{"trace": b.Trace})
	daptest.ExpectCustom(t, c, "cmc/openTrace", nil)
	daptest.ExpectStopped(t, c, "entry") // no violation: at the start, as a kept walk opens
	c.Send("cmc/gotoStep", map[string]any{"step": 17})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	if top := stack(t, c, 2)[0]; !strings.HasPrefix(top.Name, "#17 B: receive ") {
		t.Fatalf("the branch's step 17 is %q, want B's", top.Name)
	}

	c.Send("cmc/branch", map[string]any{"step": 17, "alternative": map[string]any{"proc": "A", "event": "no such event"}})
	daptest.ExpectError(t, c, "no event A.no such event")
}
