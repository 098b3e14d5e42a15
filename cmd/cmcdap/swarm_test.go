package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cmc-go/cmc/cluster"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/broker"
)

// swarmCheck runs check -json -search swarm with args into db, and returns what it printed and
// its stderr.
func swarmCheck(t *testing.T, db string, args ...string) (checkJSON, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runCheck(append([]string{"-json", "-q", "-search", "swarm", "-db", db}, args...), &out, &errb)
	var res checkJSON
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || code == 2 {
		t.Fatalf("check %s: exit %d, %v: %s %s", strings.Join(args, " "), code, err, out.String(), errb.String())
	}
	return res, errb.String()
}

// sameSwarm compares a swarm over processes with the one-process swarm: the counts, and each
// violation's trace, which the store keeps once (a trace along the same steps as one stored
// before keeps its id), so an equal id is an equal trace.
func sameSwarm(t *testing.T, what string, got, want checkJSON) {
	t.Helper()
	if got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth || got.Complete != want.Complete {
		t.Errorf("%s: %+v; one process %+v", what, got, want)
	}
	if len(got.Violations) != len(want.Violations) {
		t.Fatalf("%s: violations %+v; one process %+v", what, got.Violations, want.Violations)
	}
	for i, v := range got.Violations {
		if v != want.Violations[i] {
			t.Errorf("%s: violation %d is %+v; one process %+v", what, i, v, want.Violations[i])
		}
	}
}

// TestSwarmCheckOverProcesses: check -search swarm -partitions 2 and 3 (worker processes that
// share the members' results over the NATS server check starts) finds the one-process swarm's
// distinct states, transitions and depth on TwoPhase RM=5 bounded at 20,000 states, also with 12
// members.
func TestSwarmCheckOverProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries and runs five checks")
	}
	db := filepath.Join(t.TempDir(), "t.db")
	args := []string{"-states", "20000", "-model", "TwoPhase", "-set", "RM=5", "../../examples/twophase"}
	want, _ := swarmCheck(t, db, args...)
	if want.States < 5000 || want.Complete {
		t.Fatalf("one process: %+v", want)
	}
	for _, n := range []string{"2", "3"} {
		got, _ := swarmCheck(t, db, append([]string{"-partitions", n}, args...)...)
		sameSwarm(t, "-partitions "+n, got, want)
	}
	want12, _ := swarmCheck(t, db, append([]string{"-members", "12"}, args...)...)
	if want12.States == want.States {
		t.Errorf("12 members found the states 8 found: %+v", want12)
	}
	got12, _ := swarmCheck(t, db, append([]string{"-members", "12", "-partitions", "5"}, args...)...)
	sameSwarm(t, "-members 12 -partitions 5", got12, want12)
}

// TestSwarmCheckSpecBug: two processes find AODVSpecBug's routing loop, the one-process swarm's
// trace (the same stored trace), while the members of process 1 are stopped by member 0's.
func TestSwarmCheckSpecBug(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	db := filepath.Join(t.TempDir(), "t.db")
	args := []string{"-model", "AODVSpecBug", "../../examples/aodv"}
	want, _ := swarmCheck(t, db, args...)
	if len(want.Violations) != 1 || !strings.Contains(want.Violations[0].Message, "routing loop") {
		t.Fatalf("one process: %+v", want)
	}
	got, _ := swarmCheck(t, db, append([]string{"-partitions", "2"}, args...)...)
	sameSwarm(t, "-partitions 2", got, want)
}

// TestSwarmCheckSurvivesKill: a swarm process's worker killed with SIGKILL as one of its members
// ends (CMC_TEST_KILL=1:3: process 1, member 3, before it is published) is started again, runs
// its members again, and the swarm's result is the one-process swarm's.
func TestSwarmCheckSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	db := filepath.Join(t.TempDir(), "t.db")
	args := []string{"-states", "20000", "-model", "TwoPhase", "-set", "RM=5", "../../examples/twophase"}
	want, _ := swarmCheck(t, db, args...)
	t.Setenv("CMC_TEST_KILL", "1:3")
	got, errs := swarmCheck(t, db, append([]string{"-partitions", "2"}, args...)...)
	if !strings.Contains(errs, "swarm process 1's worker died (worker died outside any transition: the worker was killed by signal SIGKILL") ||
		!strings.Contains(errs, "started again, it runs its members again") {
		t.Errorf("stderr does not say process 1 was killed and started again: %s", errs)
	}
	sameSwarm(t, "after kill -9", got, want)
}

// TestSwarmCheckRefuses: what a swarm over processes does not do is one line before anything is
// built.
func TestSwarmCheckRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-search", "swarm", "-partitions", "9"}, "-partitions 9 with 8 members: process 8 would have none (member i runs in process i mod 9); give -members 9 or more, or fewer partitions"},
		{[]string{"-search", "swarm", "-partitions", "2", "-cover"}, "-search swarm -partitions runs without -cover"},
		{[]string{"-members", "3"}, "-members is the number of a swarm's searches: add -search swarm, or drop -members"},
		{[]string{"-search", "swarm", "-members", "-1"}, "-members -1: want 0 or more"},
	} {
		var out, errb bytes.Buffer
		code := runCheck(append(c.args, "./nowhere"), &out, &errb)
		if msg := errb.String(); code != 2 || !strings.HasPrefix(msg, "cmcdap check: "+c.want) || strings.Count(msg, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want one line starting %q", strings.Join(c.args, " "), code, msg, c.want)
		}
	}
}

// TestSwarmWorkerRefuses: cmcdap worker -search swarm refuses what check refuses.
func TestSwarmWorkerRefuses(t *testing.T) {
	var out, errb bytes.Buffer
	code := workerCommand([]string{"-search", "swarm", "-members", "2", "-partitions", "3", "-partition", "0", "-run", "r1", "-nats", "nats://127.0.0.1:1", "./nowhere"}, &out, &errb)
	if want := "cmcdap worker: -partitions 3 with 2 members"; code != 2 || !strings.HasPrefix(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want %q", code, errb.String(), want)
	}
}

// TestSwarmProgress: a swarm process says what its members found (tracefmt.Progress says how
// many members are done).
func TestSwarmProgress(t *testing.T) {
	var b bytes.Buffer
	writeSwarmProcess(&b, 1, 2, &engine.Result{States: 10, Transitions: 30})
	if got := b.String(); got != "swarm process 1 of 2 done: its members found 10 states, 30 transitions, 0 violations\n" {
		t.Errorf("%q", got)
	}
}

// TestSwarmWorkers: two cmcdap worker -search swarm processes of one run, meeting at a NATS
// server with a token from the environment as on a cluster, give the one-process swarm's result
// in process 0, which stores it; process 1 prints one line.
func TestSwarmWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	b, err := broker.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Setenv(cluster.EnvToken, b.Token)
	db := filepath.Join(t.TempDir(), "t.db")
	args := []string{"-states", "20000", "-model", "TwoPhase", "-set", "RM=5", "../../examples/twophase"}
	want, _ := swarmCheck(t, db, args...)
	var outs, errs [2]bytes.Buffer
	var codes [2]int
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Go(func() {
			codes[k] = workerCommand(append([]string{"-search", "swarm", "-nats", b.URL, "-run", "sw1", "-partitions", "2",
				"-partition", strconv.Itoa(k), "-json", "-q", "-db", db}, args...), &outs[k], &errs[k])
		})
	}
	wg.Wait()
	if codes[0] != 0 || codes[1] != 0 {
		t.Fatalf("exit %v; stderr %q, %q", codes, errs[0].String(), errs[1].String())
	}
	var got checkJSON
	if err := json.Unmarshal(outs[0].Bytes(), &got); err != nil {
		t.Fatalf("process 0: %v: %s", err, outs[0].String())
	}
	sameSwarm(t, "two cmcdap worker processes", got, want)
	if line := outs[1].String(); !strings.HasPrefix(line, "swarm process 1 of 2 done: its members found ") || strings.Count(line, "\n") != 1 {
		t.Errorf("process 1 printed %q", line)
	}
}
