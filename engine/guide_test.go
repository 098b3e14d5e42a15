package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cmc-go/cmc"
)

// A walker moves right or up on a 3x3 grid, from (0,0): the small model on which the transcripts
// in testdata/guided.txt show the order in which best-first search and iterative deepening visit
// states.
type walker struct{ X, Y int }

// walkerModel builds the walker with the guidance kind names: score (prefer up), score2 (two
// levels: first whether Y is 2, then X), abstract (novelty of X), values (no guidance: novelty of
// values), scenarios (one reachable, one not), bad (X=1, Y=2 violates), two (two violations).
func walkerModel(kind string) (*cmc.Model, *walker) {
	w := &walker{}
	m := cmc.NewModel("grid")
	m.Process("w", w).
		On("right", func() { w.X++ }, cmc.When(func() bool { return w.X < 2 })).
		On("up", func() { w.Y++ }, cmc.When(func() bool { return w.Y < 2 }))
	violates := func(name string, x, y int) {
		m.Invariant(name, func() error {
			if w.X == x && w.Y == y {
				return fmt.Errorf("at (%d,%d)", x, y)
			}
			return nil
		})
	}
	switch kind {
	case "score":
		m.Score(func() int { return w.Y })
	case "score2":
		m.Score(func() int { return w.Y / 2 }, func() int { return w.X })
	case "abstract":
		m.Abstract(func() any { return w.X })
	case "scenarios":
		m.Sometimes("corner", func() bool { return w.X == 2 && w.Y == 2 }, func() int { return w.X + w.Y })
		m.Sometimes("off the grid", func() bool { return w.X > 2 }, func() int { return w.X })
		m.Sometimes("up first", func() bool { return w.Y == 1 && w.X == 0 })
	case "bad":
		violates("not-1-2", 1, 2)
	case "two":
		violates("not-2-0", 2, 0)
		violates("not-0-2", 0, 2)
	case "panic":
		m.Score(func() int { panic(errors.New("no score")) })
	case "scenarios-panic":
		m.Sometimes("off", func() bool { return 1/w.Y > 0 })
	}
	return m, w
}

func init() {
	for _, k := range []string{"values", "score", "score2", "abstract", "scenarios", "bad", "two", "panic", "scenarios-panic"} {
		testModels["walk-"+k] = func() *cmc.Model { m, _ := walkerModel(k); return m }
	}
}

// runVisit checks a walker model and prints each state in the order the search expands it (as
// Options.Begin sees the live state before each handler run), then the result.
func runVisit(t *testing.T, d *datadriven.TestData) string {
	name, opts := checkArgs(t, d)
	kind, ok := strings.CutPrefix(name, "walk-")
	if !ok {
		t.Fatalf("visit needs a walker model, not %q", name)
	}
	m, w := walkerModel(kind)
	var b strings.Builder
	last := int64(-1)
	opts.Begin = func(state int64, _, _ int) {
		if state != last {
			fmt.Fprintf(&b, "(%d,%d) ", w.X, w.Y)
			last = state
		}
	}
	res := checkResult(m, opts)
	return strings.TrimSpace(b.String()) + "\n" + res
}

// TestSwarmDeterministic: the same seed gives the same swarm, violations and all.
func TestSwarmDeterministic(t *testing.T) {
	opts := Options{Search: "swarm", All: true, Seed: 5, MaxStates: 40}
	m1, _ := walkerModel("two")
	m2, _ := walkerModel("two")
	a, b := checkResult(m1, opts), checkResult(m2, opts)
	if a != b {
		t.Fatalf("seed %d: two swarms differ:\n%s\n---\n%s", opts.Seed, a, b)
	}
	if strings.Count(a, "violation ") != 2 {
		t.Fatalf("seed %d: want each of the two violations once:\n%s", opts.Seed, a)
	}
}
