package dap

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/google/go-dap"
)

// TestUserModule debugs a model in another module: examples/etcdraft, which uses etcd raft from its
// own module. The double vote of EtcdRaftSendBeforePersist (docs/etcdraft.md) stops as a
// violation, the threads are the three nodes, and the stack is the 10-step trace with the crash
// that lost the vote in it.
func TestUserModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker in another module")
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "examples", "etcdraft")
	c := start(t, Config{})
	initialize(t, c)
	c.LaunchRequest(map[string]any{"program": dir, "model": "EtcdRaftSendBeforePersist",
		"params": map[string]any{"inflight": 4, "proposals": 0}, "db": filepath.Join(t.TempDir(), "traces.db")})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	stop := daptest.ExpectStopped(t, c, "exception")
	if !strings.HasPrefix(stop.Body.Text, "invariant ElectionSafety: at most one leader can be elected in a given term: term 1 had leaders") {
		t.Fatalf("stopped: %+v", stop.Body)
	}
	c.ThreadsRequest()
	if got := threadNames(daptest.Expect[*dap.ThreadsResponse](t, c)); got != "n1 n2 n3" {
		t.Fatalf("threads %s", got)
	}
	frames := frameNames(stack(t, c, stop.Body.ThreadId))
	if len(frames) != 11 { // 10 steps and the initial state
		t.Fatalf("stack %q", frames)
	}
	crashed := false
	for _, f := range frames {
		crashed = crashed || strings.Contains(f, "crash")
	}
	if !crashed {
		t.Fatalf("no crash in the trace: %q", frames)
	}
}
