package worker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	_ "github.com/cmc-go/cmc/examples/twophase" // registers TwoPhase
	"github.com/cmc-go/cmc/replay"
)

func TestReplayOps(t *testing.T) {
	params := map[string]string{"RM": "2"}
	m, err := cmc.Build("TwoPhase", params)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Check(context.Background(), m, engine.Options{Search: "random", Steps: 6, Keep: true, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Walk
	tr.Params = params
	call := func(op string, args any) ([]byte, error) {
		b, _ := json.Marshal(args)
		return ops[op](&Request{Op: op, Args: b})
	}
	if _, err := call("replay.view", ReplayViewArgs{Step: 1}); err == nil || !strings.Contains(err.Error(), "send replay.open first") {
		t.Fatalf("view before open: %v", err)
	}
	data, err := call("replay.open", ReplayOpenArgs{Trace: tr})
	if err != nil {
		t.Fatal(err)
	}
	var sum replay.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if !sum.OK() || sum.Verified != len(tr.Steps) || sum.Model != "TwoPhase" {
		t.Fatalf("summary %+v", sum)
	}
	data, err = call("replay.view", ReplayViewArgs{Step: 2})
	if err != nil {
		t.Fatal(err)
	}
	var v replay.View
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if v.Position.Step != 2 || len(v.Graph.Objects) == 0 || len(v.Leaves) == 0 || len(v.Diff) == 0 || v.Proc == "" {
		t.Fatalf("view %s", data)
	}
	if _, err := call("replay.view", ReplayViewArgs{Step: 99}); err == nil {
		t.Fatal("view of step 99 of a 6-step trace worked")
	}
	// A trace that no longer holds: the divergence is in the summary, not an error.
	bad := *tr
	bad.Steps = append([]engine.Step(nil), tr.Steps...)
	bad.Steps[1].Hash++
	data, err = call("replay.open", ReplayOpenArgs{Trace: &bad})
	if err != nil {
		t.Fatal(err)
	}
	sum = replay.Summary{}
	json.Unmarshal(data, &sum)
	if sum.Divergence == nil || sum.Divergence.Step != 2 || sum.Verified != 1 {
		t.Fatalf("summary of a broken trace: %s", data)
	}
	if _, err := call("replay.close", nil); err != nil {
		t.Fatal(err)
	}
}
