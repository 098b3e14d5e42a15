package views

import (
	"testing"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/env"
)

// TestStepConnections: the step's view carries the conversations with real peers up to the step,
// as env.Peer notes them (tracefmt.Conversations): none before the first, then one per connection
// with its exchanges, consecutive reads joined, and whether it is still open.
func TestStepConnections(t *testing.T) {
	tr := &engine.Trace{Steps: []engine.Step{
		{Proc: "web", Event: "hit", Notes: []engine.Note{
			{Kind: env.NoteOpen, To: "redis/web"},
			{Kind: env.NoteWrite, To: "redis/web", Msg: `"INCR hits\r\n"`},
			{Kind: env.NoteRead, From: "redis/web", Msg: `":1"`},
			{Kind: env.NoteRead, From: "redis/web", Msg: `"\r\n"`},
		}},
		{Proc: "web", Event: "audit", Notes: []engine.Note{
			{Kind: env.NoteOpen, To: "redis/audit"},
			{Kind: env.NoteWrite, To: "redis/audit", Msg: `"GET hits\r\n"`},
			{Kind: env.NoteEnd, From: "redis/audit", Msg: `"EOF"`},
			{Kind: env.NoteClose, To: "redis/audit"},
		}},
	}}
	src := &memSource{traces: map[int64]*engine.Trace{1: tr}}
	for _, c := range []struct {
		step int
		want string
	}{
		{0, ``},
		{1, `[{"conn":"redis/web","open":true,"wrote":11,"read":4,"exchanges":[{"step":1,"sent":true,"data":"INCR hits\r\n"},{"step":1,"data":":1\r\n"}]}]`},
		{2, `[{"conn":"redis/web","open":true,"wrote":11,"read":4,"exchanges":[{"step":1,"sent":true,"data":"INCR hits\r\n"},{"step":1,"data":":1\r\n"}]},` +
			`{"conn":"redis/audit","open":false,"wrote":10,"read":0,"exchanges":[{"step":2,"sent":true,"data":"GET hits\r\n"},{"step":2,"end":true,"data":"EOF"}]}]`},
	} {
		if got := stepJSON(t, src, c.step, "connections"); got != c.want {
			t.Errorf("step %d:\n got %s\nwant %s", c.step, got, c.want)
		}
	}
}
