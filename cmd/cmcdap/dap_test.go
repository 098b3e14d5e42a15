package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	dapsession "github.com/cmc-go/cmc/internal/dap"
	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/google/go-dap"
)

// TestDAPListen: with -listen, each TCP client gets its own session, and the server ends when
// told to, closing the sessions still open.
func TestDAPListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		serveTCP(ctx, ln, dapsession.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	dial := func() *daptest.Client {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := daptest.NewClient(conn)
		t.Cleanup(func() { c.Close() })
		return c
	}
	// Two clients at once: 1 >> initialize, << initialize on each.
	a, b := dial(), dial()
	for _, c := range []*daptest.Client{a, b} {
		c.InitializeRequest()
		daptest.Expect[*dap.InitializeResponse](t, c)
	}
	// a disconnects; b is still served.
	a.DisconnectRequest()
	daptest.Expect[*dap.DisconnectResponse](t, a)
	daptest.ExpectEnd(t, a)
	b.ThreadsRequest()
	daptest.Expect[*dap.ThreadsResponse](t, b)
	// Stopping the server ends b's session too.
	cancel()
	daptest.ExpectEnd(t, b)
	<-done
}

// TestDAPToken: a TCP session needs the token in its launch. Before it, only initialize is
// answered; a launch without it is refused and the connection closed; with it the session works.
func TestDAPToken(t *testing.T) {
	db, _ := tracesDB(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		serveTCP(ctx, ln, dapsession.Config{Token: "s3cret", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	defer func() { cancel(); <-done }()
	dial := func() *daptest.Client {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := daptest.NewClient(conn)
		t.Cleanup(func() { c.Close() })
		return c
	}

	// Without the token: 1 >> initialize << initialize; 2 >> threads << error; 3 >> launch
	// (wrong token) << error, and the connection ends.
	a := dial()
	a.InitializeRequest()
	daptest.Expect[*dap.InitializeResponse](t, a)
	a.ThreadsRequest()
	daptest.ExpectError(t, a, "this cmcdap needs a token first")
	a.LaunchRequest(map[string]any{"trace": 1, "db": db, "token": "guess"})
	daptest.ExpectError(t, a, `launch: wrong or missing "token"`)
	daptest.ExpectEnd(t, a)

	// A launch with no token at all is refused the same way.
	b := dial()
	b.LaunchRequest(map[string]any{"trace": 1, "db": db})
	daptest.ExpectError(t, b, `launch: wrong or missing "token"`)
	daptest.ExpectEnd(t, b)

	// With the token: the stored trace opens and the session answers.
	c := dial()
	c.InitializeRequest()
	daptest.Expect[*dap.InitializeResponse](t, c)
	c.LaunchRequest(map[string]any{"trace": 1, "db": db, "token": "s3cret"})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ThreadsRequest()
	daptest.Expect[*dap.ThreadsResponse](t, c)
}

// TestDAPListenPrintsToken: cmcdap dap -listen prints its address and the token to give.
func TestDAPListenPrintsToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan int)
	go func() { done <- dapCommand(ctx, []string{"-listen", "127.0.0.1:0", "-token", "abc"}, out, io.Discard) }()
	for !strings.Contains(out.String(), "token: ") {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "DAP server listening at: 127.0.0.1:") ||
		lines[1] != `token: abc (give it as "token" in the launch configuration)` {
		t.Errorf("printed %q", lines)
	}
}

// lockedBuffer is a bytes.Buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }
