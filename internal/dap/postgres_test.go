package dap

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-dap"

	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/store/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestOpenStoredTracePostgres: the launch attribute db is a postgres:// URL, taken as it is (not
// as a path under cwd); the trace opens from that database, and cmc/traces names it without
// its password.
func TestOpenStoredTracePostgres(t *testing.T) {
	db := pgtest.DB(t)
	id := storeTrace(t, db)
	c := start(t, Config{})
	initialize(t, c)
	// 2 >> launch {trace, db: URL}, << initialized, << launch
	c.LaunchRequest(map[string]any{"trace": id, "db": db})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	// 3 >> configurationDone, << configurationDone, << stopped exception
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	if got := frameNames(stack(t, c, 3)); strings.Join(got, "|") != "#3 C: receive AD from B|#0 initial state" {
		t.Fatalf("C's stack %q", got)
	}
	// 4 >> cmc/traces
	c.Send("cmc/traces", nil)
	var traces struct {
		Traces []struct{ ID, Length int }
		DB     string
	}
	daptest.ExpectCustom(t, c, "cmc/traces", &traces)
	if len(traces.Traces) != 1 || traces.Traces[0].Length != 4 || traces.DB != store.Printable(db) {
		t.Errorf("traces %+v; want trace %d of 4 steps in %s", traces, id, store.Printable(db))
	}
	if password := pgtest.Start(t).Password; strings.Contains(c.Output(), password) {
		t.Errorf("the output shows the password: %s", c.Output())
	}
}
