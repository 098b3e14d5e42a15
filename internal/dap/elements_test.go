package dap

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/google/go-dap"
)

// TestChangesNameElements: the Changes scope and data breakpoints name a set's elements by value
// (canon/elements.go), so a packet that is delivered while another is sent reads as one removed
// and one added (each one change: canon.Wholes), not as the one position whose fields changed; and a data breakpoint on a packet
// stops where it appears and where it leaves, not wherever the network's first slot changes.
//
// The relay trace: #1 A sends AD{hops 0} to B; #2 B takes it and sends AD{hops 1} to C; #3 C
// takes that and sends AD{hops 2} to B; #4 B takes it (the violation).
func TestChangesNameElements(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	id := storeTrace(t, db)
	c := start(t, Config{})
	initialize(t, c)
	// 2 >> launch {trace}, << initialized, << launch; >> configurationDone, << stopped entry
	c.LaunchRequest(map[string]any{"trace": id, "db": db, "stopOnEntry": true})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "entry")

	// 3 >> cmc/gotoStep 2; >> scopes, variables (Changes)
	c.Send("cmc/gotoStep", map[string]any{"step": 2})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	scopes := scopeRefs(t, c, stack(t, c, 2)[0].Id)
	const (
		taken = `net.Pending[{0 1 AD{A seq 1 hops 0}}]`
		sent  = `net.Pending[{1 2 AD{A seq 1 hops 1}}]`
	)
	// A packet taken and one sent are one change each, their fields in one line.
	got := map[string]string{}
	for name, v := range vars(t, c, scopes["Changes"]) {
		if strings.HasPrefix(name, "net.Pending[") {
			got[name] = v.Type + " " + v.Value
		}
	}
	want := map[string]string{
		taken: `removed − {From: 0, To: 1, Msg.Dest: "A", Msg.Seq: 1, Msg.Hops: 0}`,
		sent:  `added + {From: 1, To: 2, Msg.Dest: "A", Msg.Seq: 1, Msg.Hops: 1}`,
	}
	if !maps.Equal(got, want) {
		t.Errorf("changes of net.Pending:\n got %q\nwant %q", got, want)
	}

	// 4 >> dataBreakpointInfo on a packet of the Changes scope; >> setDataBreakpoints on it
	c.DataBreakpointInfoRequest(scopes["Changes"], sent)
	if info := daptest.Expect[*dap.DataBreakpointInfoResponse](t, c).Body; info.DataId != sent {
		t.Fatalf("dataBreakpointInfo %+v", info)
	}
	c.SetDataBreakpointsRequest(sent)
	if b := daptest.Expect[*dap.SetDataBreakpointsResponse](t, c).Body.Breakpoints; !b[0].Verified {
		t.Fatalf("data breakpoint %+v", b)
	}
	// 5 >> cmc/gotoStep 0; >> continue: stops at #2 (the packet sent), then #3 (taken), then the end
	c.Send("cmc/gotoStep", map[string]any{"step": 0})
	daptest.ExpectCustom(t, c, "cmc/gotoStep", nil)
	daptest.ExpectStopped(t, c, "goto")
	for _, want := range []string{"#2 ", "#3 "} {
		c.ContinueRequest(1)
		daptest.Expect[*dap.ContinueResponse](t, c)
		e := daptest.ExpectStopped(t, c, "data breakpoint")
		if top := stack(t, c, e.Body.ThreadId)[0]; !strings.HasPrefix(top.Name, want) {
			t.Fatalf("data breakpoint at %s, want %s", top.Name, want)
		}
	}
	c.ContinueRequest(1)
	daptest.Expect[*dap.ContinueResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
}

// TestElementByKeyValue: an element of a keyed slice is named by its one key field's value too
// (A.routes["D"] and A.routes[D] are A.routes["Dest=D"]), and a name no element could have is an
// error that says how to write it, never a quiet nil. At the AODV loop's violation A routes to D
// via C.
func TestElementByKeyValue(t *testing.T) {
	c, _, _ := openAODV(t)
	for _, e := range []struct{ expr, want string }{
		{`A.routes["D"].NextHop`, `"C"`},
		{`A.routes[D].NextHop`, `"C"`},
		{`A.routes["Dest=D"].NextHop == A.routes["D"].NextHop`, "true"},
		{`A.routes["Z"]`, "nil"}, // the right form, no such route: nil as ever
		{`A.routes["Dest=Z"]`, "nil"},
	} {
		c.EvaluateRequest(e.expr, 0, "watch")
		if r := daptest.Expect[*dap.EvaluateResponse](t, c).Body; r.Result != e.want && !strings.HasPrefix(r.Result, e.want) {
			t.Errorf("%s = %s, want %s", e.expr, r.Result, e.want)
		}
	}
	for _, e := range []struct{ expr, want string }{
		{`A.routes["Dst=D"]`, `no element "Dst=D": elements here are named by Dest; write ["Dest=…"]`},
		{`A.seen["B"]`, `no element "B": elements here are named by Orig,ID, which one value cannot name; write ["Orig=…,ID=…"]`},
	} {
		c.EvaluateRequest(e.expr, 0, "watch")
		daptest.ExpectError(t, c, e.want)
	}
	// A condition with the natural key stops where it is true.
	gotoStep(t, c, 0)
	c.SetFunctionBreakpointsRequest(map[string]any{"name": "receive", "condition": `A.routes["D"].NextHop == "C"`})
	daptest.Expect[*dap.SetFunctionBreakpointsResponse](t, c)
	cont(t, c, "function breakpoint")
}
