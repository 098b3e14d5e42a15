package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/cmctest"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/redis"
	"github.com/cmc-go/cmc/store"
)

// cmcdap replay of examples/redis's bug trace, stored in the trace database, with redis-server
// off PATH and nothing but the database in the directory: the worker's replay answers every read
// from the bytes the trace recorded (env.Peer.Learn), proves every state and reproduces the
// violation. With confirm=true the replay first replays the conversation on the server, which
// cannot start.
func TestReplayRedisWithoutServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	// The trace: against redis-server where it is installed, else against the in-process fake,
	// whose answers are the same bytes; either way the stored run's model is the default one,
	// which starts redis-server when its cache needs the server.
	o := redis.Options{Hits: 2, Timeouts: 1}
	if _, err := exec.LookPath("redis-server"); err != nil {
		o.Fake = true
	}
	m, err := redis.New(o)
	if err != nil {
		t.Fatal(err)
	}
	tr := cmctest.Violates(t, m, engine.Options{})
	pkg, err := filepath.Abs("../../examples/redis")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	db, err := store.Open(filepath.Join(dir, "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, params := range []map[string]string{nil, {"confirm": "true"}} {
		tr.Params = params
		run, err := db.AddRun(store.Run{Model: "RedisCounter", Package: pkg, Params: params, Start: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		id, err := db.AddTrace(run, tr, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	db.Close()
	t.Setenv("PATH", pathWithout(t, "redis-server"))
	if p, err := exec.LookPath("redis-server"); err == nil {
		t.Fatalf("redis-server is still on PATH at %s", p)
	}

	var out strings.Builder
	code, err := replayTrace(context.Background(), &replayFlags{db: "traces.db"}, ids[0], &out)
	if err != nil || code != 0 || !strings.Contains(out.String(), "every state hash matches; the violation reproduces") {
		t.Fatalf("replay without redis-server: code %d, err %v, output\n%s", code, err, out.String())
	}
	t.Log(out.String())
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "traces.db") {
			t.Errorf("the replay left %s beside the trace database", e.Name())
		}
	}

	out.Reset()
	code, err = replayTrace(context.Background(), &replayFlags{db: "traces.db"}, ids[1], &out)
	if code != 2 || err == nil || !strings.Contains(err.Error(), "redis-server") || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("replay with confirm=true without redis-server: want it to say it cannot start the server, got code %d, err %v, output\n%s", code, err, out.String())
	}
	t.Log(err)
}

// pathWithout is a PATH with every program of the current one except name: a directory of
// links, so the go command and the C toolchain a worker's build uses are still found.
func pathWithout(t *testing.T, name string) string {
	bin := t.TempDir()
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.Name() == name {
				continue
			}
			if _, err := os.Lstat(filepath.Join(bin, e.Name())); err == nil {
				continue // an earlier directory's program wins, as on PATH
			}
			os.Symlink(filepath.Join(d, e.Name()), filepath.Join(bin, e.Name()))
		}
	}
	return bin
}
