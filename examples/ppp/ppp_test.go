package ppp

import (
	"context"
	"strconv"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cmc-go/cmc/cmctest"
	"github.com/cmc-go/cmc/engine"
)

// TestRefinement runs the transcripts in testdata/: `check [ops=N] [bound=N] [loss] [maxid=N]
// [negotiate] [pppd] [specpeer]` checks the model with that Config and prints the result, and each
// violation with its trace: every step's messages and the spec step it matched.
// Regenerate with: go test ./examples/ppp -run TestRefinement -rewrite
func TestRefinement(t *testing.T) {
	datadriven.RunTest(t, "testdata/refinement.txt", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "check" {
			return "unknown command " + d.Cmd
		}
		c := Config{Ops: 2, Bound: 2, MaxID: 3}
		for _, a := range d.CmdArgs {
			n := 0
			if len(a.Vals) > 0 {
				n, _ = strconv.Atoi(a.Vals[0])
			}
			switch a.Key {
			case "ops":
				c.Ops = n
			case "bound":
				c.Bound = n
			case "maxid":
				c.MaxID = n
			case "loss":
				c.Loss = true
			case "negotiate":
				c.Negotiate = true
			case "pppd":
				c.PPPD240RTA = true
			case "specpeer":
				c.SpecPeer = true
			default:
				t.Fatalf("unknown argument %s", a.Key)
			}
		}
		r, err := engine.Check(context.Background(), New(c), engine.Options{})
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return cmctest.Transcript(r)
	})
}
