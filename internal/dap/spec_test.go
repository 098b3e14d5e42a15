package dap

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-dap"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/ppp"
	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/store"
)

// TestSpecificationScope: stopped at a refinement violation (pppd 2.4.0's Terminate-Ack in
// Opened), the Specification scope shows the specifications' state beside the implementation's,
// the step that was refused and what the specification allowed there; at an earlier step, the
// spec step it matched.
func TestSpecificationScope(t *testing.T) {
	res, err := engine.Check(context.Background(), ppp.New(ppp.Config{Ops: 2, Bound: 2, MaxID: 3, PPPD240RTA: true}), engine.Options{})
	if err != nil || len(res.Violations) != 1 || res.Violations[0].Violation.Kind != "refinement" {
		t.Fatalf("check: %v, %+v", err, res.Violations)
	}
	path := filepath.Join(t.TempDir(), "traces.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := db.AddTrace(0, res.Violations[0], time.Time{})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, Config{})
	initialize(t, c)
	// 2 >> launch {trace}, << initialized, << launch; >> configurationDone, << stopped exception
	c.LaunchRequest(map[string]any{"trace": id, "db": path})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// 3 >> stackTrace of A, the process that took the refused step; >> scopes of its top frame
	frames := stack(t, c, 1)
	scopes := scopeRefs(t, c, frames[0].Id)
	if _, ok := vars(t, c, scopes["Network"])["ppp0"]; ok {
		t.Error("the Network scope shows the specification ppp0 too")
	}
	spec := vars(t, c, scopes["Specification"])
	for name, want := range map[string]string{
		"ppp0 refused":   "in Opened: RTA with tld,scr reaching Opened",
		"ppp0 allows #9": "RTA: tld,scr → Req-Sent",
		"ppp0 allows #1": "Down: tld → Starting",
	} {
		if got := spec[name].Value; got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if len(spec) != 2+1+9 {
		t.Errorf("%d variables, want the two specs, the refusal and nine allowed moves: %v", len(spec), spec)
	}
	// The spec's own state, expandable: it is where the refused step started.
	state := vars(t, c, vars(t, c, spec["ppp0"].VariablesReference)["State"].VariablesReference)
	if got := state["Phase"].Value; got != `"Opened"` {
		t.Errorf("ppp0.State.Phase = %s, want \"Opened\"", got)
	}
	// 4 the step before, where A's RCR+ opened the link: the spec step it matched
	spec = vars(t, c, scopeRefs(t, c, frames[1].Id)["Specification"])
	if got := spec["ppp0 matched"].Value; got != "RCR+: sca,tlu → Opened" {
		t.Errorf("ppp0 matched = %q at %s", got, frames[1].Name)
	}
}
