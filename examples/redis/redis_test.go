package redis

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/cmctest"
	"github.com/cmc-go/cmc/engine"
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
