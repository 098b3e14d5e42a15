package twophase

import (
	"context"
	"testing"

	"github.com/cmc-go/cmc/engine"
)

func TestStates(t *testing.T) {
	for _, c := range []struct {
		rm     int
		states int64
	}{{3, 288}, {5, 8832}, {7, 0}} {
		r, err := engine.Check(context.Background(), New(c.rm), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("RM=%d states=%d transitions=%d depth=%d complete=%v viol=%d", c.rm, r.States, r.Transitions, r.Depth, r.Complete, len(r.Violations))
	}
}
