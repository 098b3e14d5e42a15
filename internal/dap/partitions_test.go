package dap

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// TestPartitionedLaunch: a launch with "partitions": 2 checks TwoPhase in two worker processes
// that meet at a NATS server started on loopback for the run. Its progress names both
// partitions' shares of the states, and it finds the one-process launch's states and
// transitions, stored as any check's run.
func TestPartitionedLaunch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two workers")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	check := func(partitions int) (service.Report, []*dap.ProgressUpdateEvent, string) {
		t.Helper()
		c := start(t, Config{})
		initialize(t, c)
		// << progressStart, << progressUpdate..., << exited 0, << terminated, << progressEnd
		checkClean(t, c, map[string]any{"program": "../../examples/twophase", "params": map[string]any{"RM": 5}, "db": db, "partitions": partitions})
		daptest.Expect[*dap.ProgressEndEvent](t, c)
		var updates []*dap.ProgressUpdateEvent
		for _, m := range c.SetAside() {
			if u, ok := m.(*dap.ProgressUpdateEvent); ok {
				updates = append(updates, u)
			}
		}
		return result(t, c), updates, c.Output()
	}
	one, _, _ := check(0)
	two, updates, out := check(2)
	if !one.Complete || !two.Complete || one.States != two.States || one.Transitions != two.Transitions || one.Depth != two.Depth {
		t.Fatalf("one process: %d states, %d transitions, depth %d, complete %v; two partitions: %d, %d, %d, %v",
			one.States, one.Transitions, one.Depth, one.Complete, two.States, two.Transitions, two.Depth, two.Complete)
	}
	if len(updates) == 0 {
		t.Fatal("no progressUpdate")
	}
	// The last update is the final figures: both shares, which add up to the states.
	last := updates[len(updates)-1].Body.Message
	for _, u := range updates {
		t.Logf("progressUpdate %q", u.Body.Message)
	}
	m := regexp.MustCompile(`^([\d,]+) states · .* · partitions ([\d,]+)/([\d,]+) \(max/mean \d\.\d\d\)$`).FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("last progressUpdate %q does not name both partitions' shares", last)
	}
	n := func(s string) int64 { v, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64); return v }
	if n(m[1]) != two.States || n(m[2])+n(m[3]) != two.States || n(m[2]) == 0 || n(m[3]) == 0 {
		t.Errorf("last progressUpdate %q: want %d states shared by both partitions", last, two.States)
	}
	if !strings.Contains(out, "2 partitions owned "+m[2]+"/"+m[3]+" states") {
		t.Errorf("the summary does not say how the partitions shared the states:\n%s", out)
	}
	// Stored as any check's run, with the partitions in its settings.
	s, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs()
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	var settings service.RunSettings
	if err := json.Unmarshal(runs[1].Settings, &settings); err != nil || settings.Partitions != 2 || runs[1].Package != "github.com/cmc-go/cmc/examples/twophase" {
		t.Errorf("the partitioned run is stored as %+v (%s), %v", runs[1], runs[1].Settings, err)
	}
}

// TestPartitionedLaunchNATSUnreachable: a NATS server that is not there is the launch's error,
// naming it.
func TestPartitionedLaunchNATSUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	c := start(t, Config{})
	initialize(t, c)
	c.LaunchRequest(map[string]any{"program": "../../examples/twophase", "params": map[string]any{"RM": 3},
		"db": filepath.Join(t.TempDir(), "traces.db"), "partitions": 2, "nats": "nats://127.0.0.1:1"})
	daptest.ExpectError(t, c, `launch: "nats": connect to NATS at nats://127.0.0.1:1: `)
}

// TestCancelPartitionedCheck: a partitioned check that would run forever reports each
// partition's share as it goes, at a level's barrier, and ends when the client cancels its
// progress, leaving no run directory (the loopback NATS server's store, the checkpoints) behind.
func TestCancelPartitionedCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	c := start(t, Config{})
	initialize(t, c)
	c.LaunchRequest(map[string]any{"program": relayDir(t), "model": "Forever", "db": filepath.Join(t.TempDir(), "traces.db"), "partitions": 2})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	// << progressStart, << progressUpdate (partition 0 reports a level at most once a second)
	start := daptest.Expect[*dap.ProgressStartEvent](t, c)
	update := daptest.Expect[*dap.ProgressUpdateEvent](t, c)
	if !regexp.MustCompile(` · frontier [\d,]+ · partitions [\d,]+/[\d,]+ \(max/mean \d\.\d\d\)$`).MatchString(update.Body.Message) {
		t.Fatalf("progress %q does not name the frontier and both partitions' shares", update.Body.Message)
	}
	// >> cancel {progressId}, << cancel, << terminated
	c.CancelRequest(start.Body.ProgressId)
	daptest.Expect[*dap.CancelResponse](t, c)
	daptest.Expect[*dap.TerminatedEvent](t, c)
	if out := c.Output(); !strings.Contains(out, "check cancelled") {
		t.Fatalf("output %q", out)
	}
	if runs, _ := filepath.Glob(filepath.Join(tmp, "cmc-run-*")); len(runs) > 0 {
		t.Errorf("the run's directory is left behind: %v", runs)
	}
}
