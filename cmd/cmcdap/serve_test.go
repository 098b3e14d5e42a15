package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmc-go/cmc/store"
)

func TestServeRefusesRemoteAddresses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:80"} {
		var out, errb bytes.Buffer
		code := serveCommand(context.Background(), []string{"-db", db, "-addr", addr}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "not a loopback address") || !strings.Contains(errb.String(), "-allow-remote") {
			t.Errorf("serve -addr %s: exit %d, stderr %q", addr, code, errb.String())
		}
	}
}

func TestServeStartsAndStops(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "traces.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, cancel, done := startServe(t, db)
	if !strings.Contains(out.String(), "http://127.0.0.1:") {
		t.Errorf("serve printed %q", out.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after interrupt", code)
	}
}

// startServe runs cmcdap serve on db until it prints its address; cancel stops it, and done
// then gives its exit code.
func startServe(t *testing.T, db string) (out *syncBuffer, cancel context.CancelFunc, done chan int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &syncBuffer{}
	done = make(chan int)
	go func() { done <- serveCommand(ctx, []string{"-db", db, "-pkg", ""}, out, out) }()
	for !strings.Contains(out.String(), "?token=") {
		select {
		case code := <-done:
			cancel()
			t.Fatalf("serve ended with %d: %s", code, out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return out, cancel, done
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in different goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
