package views

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/ppp"
)

// stepJSON is the "step" op's answer for step of trace 1 of src, the field name of it only.
func stepJSON(t *testing.T, src Source, step int, field string) string {
	t.Helper()
	s, err := New(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rep struct {
		Result map[string]json.RawMessage `json:"result"`
		Error  string                     `json:"error"`
	}
	if err := json.Unmarshal(s.handle(fmt.Appendf(nil, `{"id":1,"op":"step","trace":1,"step":%d}`, step)), &rep); err != nil || rep.Error != "" {
		t.Fatalf("step %d: %v %s", step, err, rep.Error)
	}
	return string(rep.Result[field])
}

// TestStepSpecs: at pppd 2.4.0's refused Terminate-Ack in Opened, the step's view has each
// specification's state and, for the one that refused, the step it refused and every move it
// allowed; at the step before, the spec step it matched. The same as the debugger's Specification
// scope (internal/dap's TestSpecificationScope).
func TestStepSpecs(t *testing.T) {
	res, err := engine.Check(context.Background(), ppp.New(ppp.Config{Ops: 2, Bound: 2, MaxID: 3, PPPD240RTA: true}), engine.Options{})
	if err != nil || len(res.Violations) != 1 || res.Violations[0].Violation.Kind != "refinement" {
		t.Fatalf("check: %v, %+v", err, res.Violations)
	}
	tr := res.Violations[0]
	src := &memSource{traces: map[int64]*engine.Trace{1: tr}}
	n := len(tr.Steps)
	var specs []SpecView
	if err := json.Unmarshal([]byte(stepJSON(t, src, n, "specs")), &specs); err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 {
		t.Fatalf("step %d: %d specifications, want ppp0 and ppp1: %+v", n, len(specs), specs)
	}
	refused := specs[0]
	if refused.Spec != "ppp0" || refused.Refused != "in Opened: RTA with tld,scr reaching Opened" || refused.Matched != "" {
		t.Errorf("ppp0 at step %d: %+v", n, refused.SpecStep)
	}
	if len(refused.Allowed) != 9 || refused.Allowed[0] != "Down: tld → Starting" || refused.Allowed[8] != "RTA: tld,scr → Req-Sent" {
		t.Errorf("ppp0 allowed %q, want nine moves from Down to RTA", refused.Allowed)
	}
	if got := leafValue(refused.State, "ppp0", "Phase"); got != `"Opened"` {
		t.Errorf("ppp0's phase after the refused step = %s, want \"Opened\" (rows %+v)", got, refused.State)
	}
	if specs[1].Spec != "ppp1" || len(specs[1].State) == 0 {
		t.Errorf("ppp1 at step %d: %+v", n, specs[1])
	}
	specs = nil
	if err := json.Unmarshal([]byte(stepJSON(t, src, n-1, "specs")), &specs); err != nil {
		t.Fatal(err)
	}
	if specs[0].Matched != "RCR+: sca,tlu → Opened" || specs[0].Refused != "" || specs[0].Allowed != nil {
		t.Errorf("ppp0 at step %d: %+v", n-1, specs[0].SpecStep)
	}
	if got := stepJSON(t, src, 0, "specs"); !strings.Contains(got, `"spec":"ppp0","state":[{`) {
		t.Errorf("initial state: %s, want ppp0's state alone", got)
	}
	// A trace without specifications has no such field.
	if got := stepJSON(t, &memSource{traces: map[int64]*engine.Trace{1: testTrace()}}, 1, "specs"); got != "" {
		t.Errorf("a trace without specifications: specs %s", got)
	}
}

// leafValue is the value of the row of spec's state whose path ends in field.
func leafValue(rows []DiffRow, spec, field string) string {
	for _, r := range rows {
		if rootOf(r.Path) == spec && strings.HasSuffix(r.Path, "."+field) {
			return r.New
		}
	}
	return ""
}
