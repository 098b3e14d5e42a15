package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/internal/service"
)

// checkJSON is what check -json prints that these tests read (a partitioned check, a swarm over
// processes, a worker).
type checkJSON struct {
	States, Transitions int64
	Depth               int
	Complete            bool
	Violations          []struct {
		Kind, Message string
		Length        int
		TraceID       int64 `json:"trace_id"`
	}
}

// partitionedCheck runs check -json with settings s and returns what it printed and its stderr.
func partitionedCheck(t *testing.T, model string, set map[string]string, s service.RunSettings, pkg string) (checkJSON, string) {
	t.Helper()
	code, out, errs := runCheckArgs(t, model, set, s, true, pkg)
	var res checkJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil || code == 2 {
		t.Fatalf("-partitions %d: exit %d, %v: %s %s", s.Partitions, code, err, out, errs)
	}
	return res, errs
}

// TestPartitionedCheckCounts: check -partitions 1, 2 and 4 (worker processes exchanging states
// over the NATS server check starts) finds the single-process check's counts on TwoPhase RM=7.
func TestPartitionedCheckCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries and runs up to five checks")
	}
	set := map[string]string{"RM": "7"}
	want, _ := partitionedCheck(t, "TwoPhase", set, service.RunSettings{}, "../../examples/twophase")
	if want.States != 296448 || !want.Complete {
		t.Fatalf("one process: %+v", want)
	}
	for _, n := range []int{1, 2, 4} {
		got, _ := partitionedCheck(t, "TwoPhase", set, service.RunSettings{Partitions: n}, "../../examples/twophase")
		if got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth || got.Complete != want.Complete {
			t.Errorf("-partitions %d: %+v; one process %+v", n, got, want)
		}
	}
}

// TestPartitionedCheckSurvivesKill: a partition's worker killed with SIGKILL in the middle of a
// level is started again, goes on from its checkpoint of that level and the run's stream, and
// the check's counts are the single-process check's.
func TestPartitionedCheckSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	set := map[string]string{"RM": "6"}
	want, _ := partitionedCheck(t, "TwoPhase", set, service.RunSettings{}, "../../examples/twophase")
	t.Setenv("CMC_TEST_KILL", "1:8") // partition 1 kills itself after its first batch of level 8
	got, errs := partitionedCheck(t, "TwoPhase", set, service.RunSettings{Partitions: 2}, "../../examples/twophase")
	if !strings.Contains(errs, "partition 1's worker died (worker died outside any transition: the worker was killed by signal SIGKILL") {
		t.Errorf("stderr does not say partition 1 was killed and started again: %s", errs)
	}
	if !strings.Contains(errs, "resumed from its checkpoint at level 8") {
		t.Errorf("stderr does not say partition 1 resumed from its checkpoint of level 8: %s", errs)
	}
	if got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth || !got.Complete {
		t.Errorf("after kill -9: %+v; one process %+v", got, want)
	}
}

// TestPartitionedCheckSpecBug: two partitions find AODV's specification bug, the single-process
// breadth-first search's 16-step routing loop (examples/aodv), with its figures.
func TestPartitionedCheckSpecBug(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute")
	}
	got, errs := partitionedCheck(t, "AODVSpecBug", nil, service.RunSettings{Partitions: 2}, "../../examples/aodv")
	if len(got.Violations) != 1 || got.Violations[0].Length != 16 || !strings.HasSuffix(got.Violations[0].Message, "routing loop towards D: A -> B -> A") {
		t.Errorf("violations %+v; want one process's 16-step routing loop A -> B -> A (stderr: %s)", got.Violations, errs)
	}
	if got.States != 2168369 || got.Transitions != 5176311 {
		t.Errorf("%d states, %d transitions; want one process's 2168369 and 5176311 at the violation", got.States, got.Transitions)
	}
}

// TestPartitionIndex: -partition takes a number or env:VAR, and without it JOB_COMPLETION_INDEX
// (a Kubernetes Indexed Job's) names the partition.
func TestPartitionIndex(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "3")
	t.Setenv("MY_INDEX", "5")
	for _, c := range []struct {
		flag string
		want int
		err  string
	}{
		{"2", 2, ""}, {"", 3, ""}, {"env:MY_INDEX", 5, ""}, {"env:NOT_SET", 0, "$NOT_SET is not set"},
		{"-1", 0, "-partition is \"-1\""}, {"x", 0, "want a partition number"},
	} {
		got, err := partitionIndex(c.flag)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("-partition %q: %d, %v; want %d, %q", c.flag, got, err, c.want, c.err)
		}
	}
	t.Setenv("JOB_COMPLETION_INDEX", "")
	if _, err := partitionIndex(""); err == nil || !strings.Contains(err.Error(), "JOB_COMPLETION_INDEX") {
		t.Errorf("no partition: %v", err)
	}
}

// TestPartitionedCheckNATSUnreachable: a NATS that is not there is one line naming it, without
// its secret, within seconds; no worker waits for it.
func TestPartitionedCheckNATSUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	var out, errb bytes.Buffer
	start := time.Now()
	code := runCheck([]string{"-partitions", "2", "-nats", "nats://s3cret@127.0.0.1:1", "-q", "-db", filepath.Join(t.TempDir(), "t.db"),
		"-model", "TwoPhase", "../../examples/twophase"}, &out, &errb)
	msg := errb.String()
	if code != 2 || !strings.HasPrefix(msg, "cmcdap check: connect to NATS at nats://127.0.0.1:1: ") || strings.Contains(msg, "s3cret") || strings.Count(msg, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	if d := time.Since(start); d > 30*time.Second { // the worker build included
		t.Errorf("took %v", d)
	}
}

// TestPartitionedCheckRefuses: what a partitioned check does not do is one line before anything
// is built.
func TestPartitionedCheckRefuses(t *testing.T) {
	var out, errb bytes.Buffer
	code := runCheck([]string{"-partitions", "2", "-search", "dfs", "-all", "./nowhere"}, &out, &errb)
	if want := "cmcdap check: -partitions runs a breadth-first search without -search dfs, -all: drop them, or drop -partitions\n"; code != 2 || errb.String() != want {
		t.Errorf("exit %d, stderr %q; want %q", code, errb.String(), want)
	}
}
