package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"

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
