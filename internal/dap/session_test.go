package dap

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/google/go-dap"
)

// relayDir is the test model's package directory.
func relayDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "relay")
}

// relayFile is the test model's source file, for breakpoints.
func relayFile(t testing.TB) string { return filepath.Join(relayDir(t), "relay.go") }

// start runs a session over an in-process pipe and returns a client on it.
func start(t testing.TB, cfg Config) *daptest.Client {
	t.Helper()
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		NewSession(server, cfg).Run()
	}()
	c := daptest.NewClient(client)
	t.Cleanup(func() {
		c.Close()
		<-done
	})
	return c
}

// initialize does the first exchange.
func initialize(t testing.TB, c *daptest.Client) *dap.InitializeResponse {
	t.Helper()
	c.InitializeRequest()
	return daptest.Expect[*dap.InitializeResponse](t, c)
}

// checkClean launches a check that finds no violation and reads the session to its end:
//
//	2 >> launch, << initialized, << launch
//	3 >> configurationDone, << configurationDone, << progress..., << exited 0, << terminated
func checkClean(t testing.TB, c *daptest.Client, args map[string]any) {
	t.Helper()
	c.LaunchRequest(args)
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	if e := daptest.Expect[*dap.ExitedEvent](t, c); e.Body.ExitCode != 0 {
		t.Fatalf("exit code %d; output %q", e.Body.ExitCode, c.Output())
	}
	daptest.Expect[*dap.TerminatedEvent](t, c)
}

// lineOf returns the line of file that contains text.
func lineOf(t testing.TB, file, text string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", file, text)
	return 0
}

func threadNames(r *dap.ThreadsResponse) string {
	var names []string
	for _, th := range r.Body.Threads {
		names = append(names, th.Name)
	}
	return strings.Join(names, " ")
}

// stack returns a thread's whole stack.
func stack(t testing.TB, c *daptest.Client, thread int) []dap.StackFrame {
	t.Helper()
	c.StackTraceRequest(thread, 0, 0)
	return daptest.Expect[*dap.StackTraceResponse](t, c).Body.StackFrames
}

func frameNames(fs []dap.StackFrame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// scopeRefs returns a frame's scopes' references by name.
func scopeRefs(t testing.TB, c *daptest.Client, frame int) map[string]int {
	t.Helper()
	c.ScopesRequest(frame)
	out := map[string]int{}
	for _, s := range daptest.Expect[*dap.ScopesResponse](t, c).Body.Scopes {
		out[s.Name] = s.VariablesReference
	}
	return out
}

// vars returns a reference's variables by name.
func vars(t testing.TB, c *daptest.Client, ref int) map[string]dap.Variable {
	t.Helper()
	if ref == 0 {
		t.Fatal("variables of reference 0: not a composite")
	}
	c.VariablesRequest(ref)
	out := map[string]dap.Variable{}
	for _, v := range daptest.Expect[*dap.VariablesResponse](t, c).Body.Variables {
		out[v.Name] = v
	}
	return out
}

func hasChange(cs []struct{ Path, Kind string }, path, kind string) bool {
	for _, c := range cs {
		if c.Path == path && c.Kind == kind {
			return true
		}
	}
	return false
}
