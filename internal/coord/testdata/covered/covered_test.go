package covered

import (
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/cmctest"
	"github.com/cmc-go/cmc/engine"
)

// TestPaths runs the code paths a check runs: the model built by its registered builder, every
// reachable state, breadth-first.
func TestPaths(t *testing.T) {
	m, err := cmc.Build("Covered", nil)
	if err != nil {
		t.Fatal(err)
	}
	cmctest.Check(t, m, engine.Options{})
}
