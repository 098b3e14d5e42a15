package engine

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/internal/stackdump"
)

// TestLeaksBlameOnlyTheHandler: a goroutine the search's goroutine started between handlers (a
// partition's NATS client starts some on its first publish) is not the handler's, even when the
// count grows during a handler because another goroutine started one; a goroutine the handler
// itself left running is a finding.
func TestLeaksBlameOnlyTheHandler(t *testing.T) {
	l := leaks{user: func(f stackdump.Frame) bool { return strings.HasSuffix(f.Func, "engine.startIdle") }}
	ev := &cmc.Event{Label: "E"}
	stop := make(chan struct{})
	defer close(stop)

	if f := l.check(l.begin(), ev); f != nil {
		t.Fatalf("a handler that started nothing: %s", f.Message)
	}
	startIdle(stop) // between handlers, on the search's goroutine

	before := l.begin()
	started := make(chan struct{})
	go func() { // during the handler, another goroutine starts one
		go func() { <-stop }()
		close(started)
		<-stop
	}()
	<-started
	if f := l.check(before, ev); f != nil {
		t.Fatalf("the handler was blamed for a goroutine started before it began: %s", f.Message)
	}

	before = l.begin()
	startIdle(stop) // the handler leaves one running
	f := l.check(before, ev)
	if f == nil || f.Kind != "goroutine-leak" || !strings.Contains(f.Message, "left 1 goroutine(s)") {
		t.Fatalf("a goroutine the handler left running: got %+v", f)
	}
}

// startIdle starts a goroutine that waits for stop: the leaks test's stand-in for model code.
func startIdle(stop chan struct{}) { go func() { <-stop }() }
