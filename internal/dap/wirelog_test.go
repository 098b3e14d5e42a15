package dap

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/google/go-dap"
)

// TestWireLogSessionNumbers: two sessions sharing one wire log (two TCP clients) write their lines
// under different session numbers, and none under 0 (which every session once had).
func TestWireLogSessionNumbers(t *testing.T) {
	var buf bytes.Buffer
	wl := NewWireLog(&buf)
	for range 2 {
		c := start(t, Config{WireLog: wl})
		initialize(t, c)
		c.DisconnectRequest()
		daptest.Expect[*dap.DisconnectResponse](t, c)
		daptest.ExpectEnd(t, c)
	}
	sessions := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		f := strings.Fields(line) // time, #session, direction, JSON
		if len(f) < 4 || !strings.HasPrefix(f[1], "#") {
			t.Fatalf("wire log line %q", line)
		}
		sessions[f[1]] = true
	}
	if len(sessions) != 2 || sessions["#0"] {
		t.Fatalf("session numbers %v, want two, none #0:\n%s", sessions, buf.String())
	}
}
