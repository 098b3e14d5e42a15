package dhcp

import (
	"context"
	"strconv"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cmc-go/cmc/cmctest"
	"github.com/cmc-go/cmc/engine"
)

// TestRefinement runs testdata/refinement.txt: `check [reboot] [retries=N] [noloss] [bound=N]
// [maxxid=N] [nakbug]` checks the model and prints the result and each violation's trace.
// Regenerate with: go test ./examples/dhcp -run TestRefinement -rewrite
func TestRefinement(t *testing.T) {
	datadriven.RunTest(t, "testdata/refinement.txt", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "check" {
			return "unknown command " + d.Cmd
		}
		c := DefaultModel
		for _, a := range d.CmdArgs {
			n := 0
			if len(a.Vals) > 0 {
				n, _ = strconv.Atoi(a.Vals[0])
			}
			switch a.Key {
			case "reboot":
				c.Reboot = true
			case "retries":
				c.Retries = n
			case "noloss":
				c.Loss = false
			case "bound":
				c.Bound = n
			case "maxxid":
				c.MaxXID = n
			case "nakbug":
				c.NakBug = true
			default:
				t.Fatalf("unknown argument %s", a.Key)
			}
		}
		r, err := engine.Check(context.Background(), NewModel(c), engine.Options{})
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return cmctest.Transcript(r)
	})
}
