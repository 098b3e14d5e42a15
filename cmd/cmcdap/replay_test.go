package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/twophase"
	"github.com/cmc-go/cmc/store"
)

// cmcdap replay builds the model's package into a worker, replays a stored trace in it and says
// whether every step reproduced (exit 0) or where it diverged (exit 1).
func TestReplayCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	var tr *engine.Trace
	for seed := uint64(1); tr == nil || len(tr.Steps) < 6; seed++ {
		res, err := engine.Check(context.Background(), twophase.New(3), engine.Options{Search: "random", Steps: 20, Keep: true, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		tr = res.Walk
	}
	tr.Params = map[string]string{"RM": "3"}
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "traces.db"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := db.AddRun(store.Run{Model: "TwoPhase", Package: "github.com/cmc-go/cmc/examples/twophase", Params: tr.Params, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	id, err := db.AddTrace(run, tr, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	ctx := context.Background()
	var out strings.Builder
	code, err := replayTrace(ctx, &replayFlags{db: filepath.Join(dir, "traces.db")}, id, &out)
	want := fmt.Sprintf("replayed %d steps of trace 1 (TwoPhase): every state hash matches; the trace records no violation\n", len(tr.Steps))
	if err != nil || code != 0 || out.String() != want {
		t.Fatalf("replay of a stored trace: code %d, err %v, output\n%s\nwant\n%s", code, err, out.String(), want)
	}

	// The same trace from a file, with step 5's stored hash broken, and -to.
	tr.Steps[4].Hash++
	b, _ := json.Marshal(tr)
	file := filepath.Join(dir, "trace.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	code, err = replayTrace(ctx, &replayFlags{file: file, pkg: "../../examples/twophase"}, 0, &out)
	if err != nil || code != 1 || !strings.HasPrefix(out.String(), "replay diverged at step 5 (") ||
		!strings.Contains(out.String(), fmt.Sprintf("replayed 4 of %d steps of %s (TwoPhase) before that", len(tr.Steps), file)) {
		t.Fatalf("replay of a broken trace: code %d, err %v, output\n%s", code, err, out.String())
	}
	out.Reset()
	code, err = replayTrace(ctx, &replayFlags{file: file, pkg: "../../examples/twophase", to: 4}, 0, &out)
	if err != nil || code != 0 || !strings.HasPrefix(out.String(), fmt.Sprintf("replayed 4 of %d steps of", len(tr.Steps))) {
		t.Fatalf("replay -to 4: code %d, err %v, output\n%s", code, err, out.String())
	}
}
