package redis

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/cmctest"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/replay"
	"github.com/cmc-go/cmc/tracefmt"
)

func build(t *testing.T, o Options) *cmc.Model {
	t.Helper()
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRedisServer checks the Counter against a real redis-server through the I/O cache: the
// retry of a late INCR counts a hit twice, and the fixed client (new connection, idempotent
// request) is clean.
func TestRedisServer(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed, so the real-server check cannot run: apt-get install redis-server (.ci/run installs it)")
	}
	checkBoth(t, false)
}

// TestFake is the same check against the in-process fake, which runs everywhere.
func TestFake(t *testing.T) { checkBoth(t, true) }

func checkBoth(t *testing.T, fake bool) {
	tr := cmctest.Violates(t, build(t, Options{Hits: 2, Timeouts: 1, Fake: fake}), engine.Options{})
	var b strings.Builder
	tracefmt.Write(&b, tr)
	t.Logf("%s\n%s", tr.Violation.Message, b.String())
	if !strings.Contains(tr.Violation.Message, "counter is \"3\"") {
		t.Errorf("want the counter at 3 after 2 hits, got: %s", tr.Violation.Message)
	}
	res := cmctest.Check(t, build(t, Options{Fixed: true, Hits: 2, Timeouts: 1, Fake: fake}), engine.Options{})
	if !res.Complete {
		t.Errorf("the fixed client's check did not complete: %+v", res)
	}
	t.Logf("fixed: %d states, %d transitions", res.States, res.Transitions)
}

// TestReplayWithoutServer: a replay of the check's trace in a fresh instance whose server is gone
// answers every read from the bytes the trace recorded, reaches the same states (replay proves
// each hash) and the same violation, and never dials. With Confirm it first replays the trace's
// conversation on the server: with redis-server installed that holds, with none it says so. (cmd/cmcdap's TestReplayRedisWithoutServer does the same through
// the trace database and a worker, with redis-server off PATH.)
func TestReplayWithoutServer(t *testing.T) {
	fake := true
	if _, err := exec.LookPath("redis-server"); err == nil {
		fake = false
	}
	tr := cmctest.Violates(t, build(t, Options{Hits: 2, Timeouts: 1, Fake: fake}), engine.Options{})
	gone := &unreachable{}
	s, err := replay.Open(build(t, Options{Hits: 2, Timeouts: 1, Dialer: gone}), tr)
	if s == nil {
		t.Fatal(err)
	}
	defer s.Close()
	if sum := s.Summary(); !sum.OK() {
		t.Fatalf("the replay without the server: %s", sum.Describe("the trace"))
	}
	if gone.dials > 0 {
		t.Errorf("the replay dialed the server %d times: the trace's notes did not cover it", gone.dials)
	}

	// Confirm replays the trace's conversation on the server first: unreachable, it says so.
	if s2, err := replay.Open(build(t, Options{Hits: 2, Timeouts: 1, Dialer: gone, Confirm: true}), tr); s2 != nil || err == nil ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Errorf("the replay that confirms with an unreachable server: %v", err)
	}
	if fake {
		return
	}
	// With the real server, it confirms the answers (however the network splits them now) and
	// replays the trace.
	s3, err := replay.Open(build(t, Options{Hits: 2, Timeouts: 1, Confirm: true}), tr)
	if s3 == nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if sum := s3.Summary(); !sum.OK() {
		t.Errorf("the replay that confirms with redis-server: %s", sum.Describe("the trace"))
	}
}

type unreachable struct{ dials int }

func (u *unreachable) Dial() (io.ReadWriteCloser, error) {
	u.dials++
	return nil, errors.New("connection refused")
}
