package aodv

import (
	"testing"

	"github.com/cmc-go/cmc/engine"
)

// The shape of seed 004's result on our AODV (docs/search.md): on a grid of 8 nodes, best-first
// search with J-Sim's two-level score finds the routing loop in under 20,000 states, where
// breadth-first search with ten times the states finds none. The bounds are states, so the
// figures are exact.
func TestBestFirstReachesTheLoop(t *testing.T) {
	params := map[string]string{"nodes": "8", "score": "3"}
	res, _ := check(t, "AODVGrid", params, engine.Options{Search: "best", MaxStates: 100_000})
	wantLoop(t, res, 34, "routing loop towards H: A -> C -> A")
	if res.States > 20_000 || res.Heuristic != "score" {
		t.Errorf("best-first: %d states by %q; want at most 20,000 by the model's score", res.States, res.Heuristic)
	}
	if testing.Short() {
		return
	}
	res, _ = check(t, "AODVGrid", params, engine.Options{Search: "bfs", MaxStates: 200_000})
	if len(res.Violations) != 0 || res.States < 200_000 {
		t.Errorf("breadth-first: %d violations in %d states; want none within 200,000", len(res.Violations), res.States)
	}
}

// A scenario's trace leads to the first state that reached it, and breadth-first search finds the
// shortest: the first node has a route to the last of a chain of 4 after 7 steps.
func TestRouteFoundScenario(t *testing.T) {
	res, _ := check(t, "AODVChain", map[string]string{"nodes": "4"}, engine.Options{Search: "bfs", Goal: "route found"})
	if len(res.Scenarios) != 1 {
		t.Fatalf("%d scenarios, want 1", len(res.Scenarios))
	}
	sc := res.Scenarios[0]
	if !sc.Reached || sc.Trace == nil || len(sc.Trace.Steps) != 7 || len(res.Violations) != 0 {
		t.Fatalf("scenario %+v, %d violations; want reached in 7 steps before any violation", sc, len(res.Violations))
	}
}
