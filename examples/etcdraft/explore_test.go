package etcdraft

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/tracefmt"
)

func envInt(k string, d int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return v
	}
	return d
}

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip("EXPLORE=1 to explore")
	}
	b := Bounds{Elections: envInt("E", 2), Proposals: envInt("P", 0), Crashes: envInt("C", 1), InFlight: envInt("F", 4), Heartbeats: os.Getenv("HB") != ""}
	bug := os.Getenv("BUG") != ""
	start := time.Now()
	res, err := engine.Check(context.Background(), New("x", b, bug), engine.Options{MaxStates: int64(envInt("MAX", 3000000)), Search: os.Getenv("SEARCH")})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v bug=%v: %d states %d transitions depth %d complete %v in %s", b, bug, res.States, res.Transitions, res.Depth, res.Complete, time.Since(start))
	for _, v := range res.Violations {
		t.Logf("%s %s: %s (%d steps)", v.Violation.Kind, v.Violation.Name, v.Violation.Message, len(v.Steps))
		if os.Getenv("TRACE") != "" {
			tracefmt.Write(os.Stdout, v)
		}
	}
}
