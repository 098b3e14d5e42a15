package dap

import (
	"io"
	"log/slog"
	"time"

	"github.com/cmc-go/cmc/store"

	"github.com/google/go-dap"
)

// Config is what a session is given by its command.
type Config struct {
	// Views, when set, is told every stop, and its URL is sent to the client in a cmc/views
	// event. Large payloads (heap graphs, sequence charts) go there, not over DAP.
	Views Views
	// OpenViews, when set (and Views is not), starts a views server for the session once the
	// launch has opened the trace database and found the package (pkgDir is "" for a stored trace
	// opened without "program"). gotoStep moves the session to a step of a trace, as a click in
	// the views asks. A Views that is an io.Closer is closed when the session ends.
	OpenViews func(db *store.Store, pkgDir string, gotoStep func(traceID int64, step int)) (Views, error)
	// WireLog, when set, records every message in and out.
	WireLog *WireLog
	Logger  *slog.Logger
	// Token, when set, must be the "token" of the session's launch or attach request, and no
	// other request but initialize is served before it (token.go). TCP servers set it.
	Token string
	// Dir resolves relative paths in launch configurations (default: the process's directory).
	Dir string

	beforeRequest func(dap.Message) // tests: runs before each request is handled (inject panics)
	now           func() time.Time
}

func (c *Config) defaults() {
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.now == nil {
		c.now = time.Now
	}
}

// Views is the views server (heap graph, sequence chart, diff) as a session sees it. The session
// calls Show on every stop; the views fetch what they draw themselves.
type Views interface {
	URL() string                  // where a browser or webview opens the views
	Show(traceID int64, step int) // the session stopped at this step of this trace
}
