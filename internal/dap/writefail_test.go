package dap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// brokenPipe reads the client's requests and fails every write, as a pipe does once the editor
// is gone.
type brokenPipe struct{ io.Reader }

func (brokenPipe) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
func (brokenPipe) Close() error              { return nil }

// TestWriteFailureSaidOnce: when the client stops reading, the session says so once in its log
// (not once per message, and not never: with a single answer, only the flush fails), and ends
// when the input ends.
func TestWriteFailureSaidOnce(t *testing.T) {
	for _, cmds := range [][]string{{"initialize"}, {"initialize", "threads", "threads"}} {
		var in bytes.Buffer
		for seq, cmd := range cmds {
			body := fmt.Sprintf(`{"seq":%d,"type":"request","command":%q,"arguments":{"adapterID":"cmc"}}`, seq+1, cmd)
			fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(body), body)
		}
		var log bytes.Buffer
		s := NewSession(brokenPipe{&in}, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
		s.Run()
		if n := strings.Count(log.String(), "write DAP message"); n != 1 {
			t.Errorf("%v: the failed writes were logged %d times, want once:\n%s", cmds, n, log.String())
		}
		if !strings.Contains(log.String(), "broken pipe") {
			t.Errorf("%v: the log does not say why:\n%s", cmds, log.String())
		}
	}
}
