package tracefmt

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/env"
)

// A trace of a Redis client as env.Peer notes it: two connections, one closed.
var redisTrace = &engine.Trace{Steps: []engine.Step{
	{Proc: "web", Event: "hit", Notes: []engine.Note{
		{Kind: env.NoteOpen, To: "redis/web"},
		{Kind: env.NoteWrite, To: "redis/web", Msg: `"INCR hits\r\n"`},
		{Kind: env.NoteRead, From: "redis/web", Msg: `":1"`},
		{Kind: env.NoteRead, From: "redis/web", Msg: `"\r\n"`},
		{Kind: "send", From: "a", To: "b", Msg: "not a conversation"},
	}},
	{Proc: "web", Event: "audit", Notes: []engine.Note{
		{Kind: env.NoteOpen, To: "redis/audit"},
		{Kind: env.NoteWrite, To: "redis/audit", Msg: `"GET hits\r\n"`},
		{Kind: env.NoteEnd, From: "redis/audit", Msg: `"EOF"`},
		{Kind: env.NoteClose, To: "redis/audit"},
	}},
}}

func TestWriteConversations(t *testing.T) {
	var b strings.Builder
	if err := WriteConversations(&b, redisTrace); err != nil {
		t.Fatal(err)
	}
	want := `
conversations with real peers:
redis/web (open): wrote 11 B, read 4 B
  1  ->  "INCR hits\r\n"
  1  <-  ":1\r\n"
redis/audit (closed): wrote 10 B, read 0 B
  2  ->  "GET hits\r\n"
  2  end "EOF"
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if got := Conversations(redisTrace, 1); len(got) != 1 || got[0].Conn != "redis/web" {
		t.Errorf("up to step 1: %+v", got)
	}
}
