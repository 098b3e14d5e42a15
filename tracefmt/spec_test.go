package tracefmt

import (
	"reflect"
	"testing"

	"github.com/cmc-go/cmc/engine"
)

// A trace of two specifications as the refinement check notes it: step 1 matched by ppp0 and
// invisible to ppp1, step 2 refused by ppp0 with what it allowed.
var specTrace = &engine.Trace{Steps: []engine.Step{
	{Proc: "A", Event: "rcr", Notes: []engine.Note{
		{Kind: "send", From: "A", To: "B", Msg: "Configure-Ack"},
		{Kind: engine.NoteSpec, From: "A", To: "ppp0", Msg: "RCR+: sca,tlu → Opened"},
	}},
	{Proc: "B", Event: "rta", Notes: []engine.Note{
		{Kind: engine.NoteSpec, From: "B", To: "ppp1", Msg: "RTR: sta → Stopping"},
		{Kind: engine.NoteSpecRefused, From: "A", To: "ppp0", Msg: "in Opened: RTA with tld,scr reaching Opened"},
		{Kind: engine.NoteSpecAllows, From: "A", To: "ppp0", Msg: "Down: tld → Starting"},
		{Kind: engine.NoteSpecAllows, From: "A", To: "ppp0", Msg: "RTA: tld,scr → Req-Sent"},
	}},
}}

func TestSpecSteps(t *testing.T) {
	if got, want := Specs(specTrace), []string{"ppp0", "ppp1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Specs = %v, want %v", got, want)
	}
	for _, c := range []struct {
		step int
		want []SpecStep
	}{
		{0, nil},
		{1, []SpecStep{{Spec: "ppp0", Matched: "RCR+: sca,tlu → Opened"}, {Spec: "ppp1"}}},
		{2, []SpecStep{
			{Spec: "ppp0", Refused: "in Opened: RTA with tld,scr reaching Opened",
				Allowed: []string{"Down: tld → Starting", "RTA: tld,scr → Req-Sent"}},
			{Spec: "ppp1", Matched: "RTR: sta → Stopping"}}},
		{3, nil},
	} {
		if got := SpecSteps(specTrace, c.step); !reflect.DeepEqual(got, c.want) {
			t.Errorf("step %d: got %+v, want %+v", c.step, got, c.want)
		}
	}
}
