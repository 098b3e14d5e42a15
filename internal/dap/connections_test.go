package dap

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/redis"
	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// TestConnectionsScope: a trace of a client of a real peer (examples/redis, against its fake)
// shows the conversation per connection at the frame's step.
func TestConnectionsScope(t *testing.T) {
	m, err := redis.New(redis.Options{Fake: true, Hits: 2, Timeouts: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Check(context.Background(), m, engine.Options{})
	if err != nil || len(res.Violations) != 1 {
		t.Fatalf("check: %v, %d violations", err, len(res.Violations))
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
	// >> launch {trace}, << initialized, << launch; >> configurationDone, << stopped at the end
	c.LaunchRequest(map[string]any{"trace": id, "db": path})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	frames := stack(t, c, 1)
	// the last step (the audit): both connections
	conns := vars(t, c, scopeRefs(t, c, frames[0].Id)["Connections"])
	web, audit := conns["redis/web"], conns["redis/audit"]
	if web.Value != "wrote 72 B, read 12 B" || audit.Value != "wrote 23 B, read 7 B" {
		t.Fatalf("connections at the last step: %+v", conns)
	}
	ex := vars(t, c, web.VariablesReference)
	if ex["#3 step 2 ->"].Value != `"*2\r\n$4\r\nINCR\r\n$4\r\nhits\r\n*2\r\n$4\r\nINCR\r\n$4\r\nhits\r\n"` ||
		ex["#4 step 2 <-"].Value != `":2\r\n:3\r\n"` {
		t.Fatalf("redis/web's exchanges: %+v", ex)
	}
	// the first step: only the web connection, one INCR and its reply
	conns = vars(t, c, scopeRefs(t, c, frames[len(frames)-2].Id)["Connections"])
	if len(conns) != 1 || conns["redis/web"].Value != "wrote 24 B, read 4 B" {
		t.Fatalf("connections after step 1: %+v", conns)
	}
	// the initial state has no conversation, so no Connections scope
	if _, ok := scopeRefs(t, c, frames[len(frames)-1].Id)["Connections"]; ok {
		t.Fatal("a Connections scope at the initial state")
	}
}
