package tracefmt

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc/engine"
)

// TestSummaryEnvironment: what the environment said about the run is in the summary.
func TestSummaryEnvironment(t *testing.T) {
	var b strings.Builder
	Summary(&b, Check{Model: "M", Search: "bfs"}, &engine.Result{Complete: true,
		Environment: []string{"redis: I/O cache: connections 3"}})
	if !strings.Contains(b.String(), "\nenvironment: redis: I/O cache: connections 3\n") {
		t.Errorf("summary without the environment's line:\n%s", b.String())
	}
}
