package views

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cmc-go/cmc/engine"
)

// TestNoGoroutineLeak opens pages, some mid-request, and closes the server: every goroutine the
// server started must end.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := New(&memSource{traces: map[int64]*engine.Trace{7: testTrace()}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0", false); err != nil {
		t.Fatal(err)
	}
	var conns []*websocket.Conn
	for i := range 5 {
		ws, _, err := websocket.DefaultDialer.Dial(s.WebsocketURL()+"?token="+s.Token(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ws.WriteJSON(map[string]any{"id": 1, "op": "heap", "trace": 7, "step": 1})
		if i%2 == 0 {
			ws.Close() // a page that goes away on its own
		} else {
			conns = append(conns, ws)
		}
	}
	s.Show(7, 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ws := range conns {
		ws.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after closing:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// TestKeepalive: a page that stops answering pings is dropped; one that answers stays.
func TestKeepalive(t *testing.T) {
	ts := newTestServer(t)
	ts.pingEvery, ts.pongWait = 20*time.Millisecond, 150*time.Millisecond
	alive, _, err := ts.dial(t, ts.Token(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer alive.Close()
	go func() { // reading answers pings
		for {
			if _, _, err := alive.ReadMessage(); err != nil {
				return
			}
		}
	}()
	silent, _, err := ts.dial(t, ts.Token(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	silent.SetPingHandler(func(string) error { return nil }) // never pongs
	time.Sleep(400 * time.Millisecond)
	ts.mu.Lock()
	n := len(ts.conns)
	ts.mu.Unlock()
	if n != 1 {
		t.Errorf("%d connections after the silent page timed out, want 1", n)
	}
	// The silent page sees the server's close.
	silent.SetReadDeadline(time.Now().Add(2 * time.Second))
	for {
		if _, _, err := silent.ReadMessage(); err != nil {
			break
		}
	}
}

func TestMessageLimit(t *testing.T) {
	ts := newTestServer(t)
	ws, _, err := ts.dial(t, ts.Token(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.WriteMessage(websocket.TextMessage, []byte(`{"op":"traces","x":"`+strings.Repeat("x", maxRequest)+`"}`))
	ws.SetReadDeadline(time.Now().Add(2 * time.Second))
	for {
		_, _, err := ws.ReadMessage()
		if err != nil {
			if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
				t.Errorf("want close 1009 (message too big), got %v", err)
			}
			return
		}
	}
}
