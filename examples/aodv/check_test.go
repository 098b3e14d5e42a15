package aodv

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/tracefmt"
)

// These tests pin what the model checker finds in the AODV models (docs/aodv.md explains the
// figures): the specification's RERR rule makes a routing loop, breadth-first search finds its
// shortest trace and depth-first search finds one too; the fixed rule has no violation in the
// whole bounded state space. Searches are deterministic, so the numbers are exact: a change that
// moves them changed the model, the router or the checker, and docs/aodv.md must follow.
//
// The runs with the default parameters take half a minute to a minute each, so go test -short
// skips them; make test (CI) runs them. The other tests run in seconds.

// check builds a registered model with parameters and checks it.
func check(t *testing.T, model string, params map[string]string, opts engine.Options) (*engine.Result, time.Duration) {
	t.Helper()
	m, err := cmc.Build(model, params)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := engine.Check(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("%s %v %s: %d states, %d transitions, depth %d, complete %v, %d cut, %v",
		model, params, opts.Search, res.States, res.Transitions, res.Depth, res.Complete, res.Cut, took.Round(time.Millisecond))
	return res, took
}

// wantLoop checks that res stopped at a routing loop with the given message, after the given
// number of steps, and returns the trace.
func wantLoop(t *testing.T, res *engine.Result, steps int, message string) *engine.Trace {
	t.Helper()
	if len(res.Violations) != 1 {
		t.Fatalf("%d violations, want the routing loop", len(res.Violations))
	}
	tr := res.Violations[0]
	v := tr.Violation
	if v.Kind != "invariant" || v.Name != "NoRoutingLoop" || v.Message != message || len(tr.Steps) != steps {
		var b strings.Builder
		tracefmt.Write(&b, tr)
		t.Fatalf("violation %s %s: %q after %d steps; want invariant NoRoutingLoop: %q after %d steps\n%s",
			v.Kind, v.Name, v.Message, len(tr.Steps), message, steps, b.String())
	}
	return tr
}

// wantClean checks that res exhausted the state space without a violation.
func wantClean(t *testing.T, res *engine.Result) {
	t.Helper()
	for _, tr := range res.Violations {
		var b strings.Builder
		tracefmt.Write(&b, tr)
		t.Errorf("violation %s %s: %s\n%s", tr.Violation.Kind, tr.Violation.Name, tr.Violation.Message, b.String())
	}
	if !res.Complete {
		t.Errorf("the search did not exhaust the state space")
	}
}

// wantCount pins a count.
func wantCount(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %d, want %d", what, got, want)
	}
}

// outline renders a trace one line per step: the node, the event and what it received.
func outline(tr *engine.Trace) []string {
	var out []string
	for _, st := range tr.Steps {
		line := st.Proc + " " + st.Event
		for _, n := range st.Notes {
			switch n.Kind {
			case "deliver":
				line += ": " + n.Msg + " from " + n.From
			case "lose":
				if n.To == st.Proc {
					line += ": loses " + n.Msg + " from " + n.From
				}
			}
		}
		out = append(out, line)
	}
	return out
}

// TestSpecBugShortestLoop is the thesis's specification bug (section 4.6.5) found by
// breadth-first search with the default parameters: the shortest trace to a routing loop. The
// thesis's depth-first search needed 93 steps, its best-first search 27, and its breadth-first
// search ran out of resources. docs/aodv.md explains this trace step by step.
func TestSpecBugShortestLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("about half a minute: run without -short")
	}
	res, _ := check(t, "AODVSpecBug", nil, engine.Options{Search: "bfs"})
	tr := wantLoop(t, res, 16, "routing loop towards D: A -> B -> A")
	wantCount(t, "states", res.States, 2168369)
	wantCount(t, "transitions", res.Transitions, 5176311)
	want := []string{
		"A request D",
		"B request D",
		"A receive: RREQ{id 1 orig B seq 1 dest D seq ? hops 0 flags 0x10} from B",
		"C receive: RREQ{id 1 orig A seq 1 dest D seq ? hops 0 flags 0x10} from A",
		"D receive: RREQ{id 1 orig A seq 1 dest D seq ? hops 1 flags 0x10} from C",
		"C receive: RREP{dest D seq 0 hops 0 orig A life 0} from D",
		"C link to D fails",
		"C receive: RREQ{id 1 orig B seq 1 dest D seq ? hops 1 flags 0x10} from A",
		"D receive: RREQ{id 1 orig B seq 1 dest D seq 1 hops 2} from C",
		"C receive: RREP{dest D seq 1 hops 0 orig B life 0} from D",
		"A receive: RREP{dest D seq 1 hops 1 orig B life 0} from C",
		"A receive: RERR{D:1} from C",
		"B receive: RREP{dest D seq 1 hops 2 orig B life 0} from A",
		"A request D",
		"B receive: RREQ{id 2 orig A seq 2 dest D seq 1 hops 0} from A",
		"A receive: RREP{dest D seq 1 hops 3 orig A life 0} from B",
	}
	if got := outline(tr); !slices.Equal(got, want) {
		t.Errorf("the shortest trace changed (docs/aodv.md explains the old one):\n%s", strings.Join(got, "\n"))
	}
}

// TestSpecBugDepthFirst: depth-first search finds a loop too, quickly, on a longer trace.
func TestSpecBugDepthFirst(t *testing.T) {
	res, _ := check(t, "AODVSpecBug", nil, engine.Options{Search: "dfs", MaxDepth: 200})
	wantLoop(t, res, 20, "routing loop towards D: A -> C -> A")
	wantCount(t, "states", res.States, 67325)
	wantCount(t, "transitions", res.Transitions, 164642)
}

// TestFixedNoLoop: with the fixed RERR rule the whole bounded state space of the default model
// has no routing loop, and every next hop keeps AODV's freshness order (LoopFreedomOrder).
func TestFixedNoLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute: run without -short")
	}
	res, _ := check(t, "AODV", nil, engine.Options{Search: "bfs"})
	wantClean(t, res)
	wantCount(t, "states", res.States, 3306004)
	wantCount(t, "transitions", res.Transitions, 8303211)
}

// TestThreeNodesNoLoop: with three nodes and the default bounds neither rule breaks a property
// (the shortest loop needs the node whose link breaks, the node that takes its stale RERR, and a
// third node that answers it from a route through it), and both state spaces are small. These
// run in the short tests.
func TestThreeNodesNoLoop(t *testing.T) {
	for _, c := range []struct {
		model               string
		states, transitions int64
	}{
		{"AODVSpecBug", 11613, 27228},
		{"AODV", 11541, 27158},
	} {
		t.Run(c.model, func(t *testing.T) {
			res, _ := check(t, c.model, map[string]string{"nodes": "3"}, engine.Options{Search: "bfs"})
			wantClean(t, res)
			wantCount(t, "states", res.States, c.states)
			wantCount(t, "transitions", res.Transitions, c.transitions)
		})
	}
}

// TestThreeNodesLooseBounds: with three nodes, sequence numbers up to 2 and no budget on
// requests and faults, the specification's rule sets a route's sequence number back from 2 to 1
// and then takes an older reply over it, whose hop count (3) is impossible among 3 nodes: the
// thesis's Table 4.2 assertion. The fixed rule exhausts the same space without a violation.
func TestThreeNodesLooseBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("about half a minute: run without -short")
	}
	params := map[string]string{"nodes": "3", "seq": "2", "requests": "-1", "faults": "-1"}
	res, _ := check(t, "AODVSpecBug", params, engine.Options{Search: "bfs"})
	if len(res.Violations) != 1 {
		t.Fatalf("%d violations, want the hop count", len(res.Violations))
	}
	tr := res.Violations[0]
	const msg = "node A: route C via B seq 1 hops 3 valid: hop count 3 is not less than the 3 nodes"
	if v := tr.Violation; v.Name != "RoutingTable" || v.Message != msg || len(tr.Steps) != 22 {
		t.Errorf("violation %s %s: %q after %d steps; want RoutingTable: %q after 22", v.Kind, v.Name, v.Message, len(tr.Steps), msg)
	}
	wantCount(t, "states", res.States, 1268454)

	res, _ = check(t, "AODV", params, engine.Options{Search: "bfs"})
	wantClean(t, res)
	wantCount(t, "states", res.States, 1309434)
	wantCount(t, "transitions", res.Transitions, 5519544)
}

// TestLongWalkForgetsFloods: without bounds on requests, faults and sequence numbers, a random
// walk goes on as long as asked; with forget, seen RREQs are forgotten once their flood is over
// (an event of each router, taken when the walk picks it), so the routers' seen lists stay a few
// entries long instead of growing with every request. The replay benchmarks walk this model
// 100,000 steps.
func TestLongWalkForgetsFloods(t *testing.T) {
	params := map[string]string{"requests": "-1", "faults": "-1", "seq": "1000000", "rreq": "1000000"}
	most := func(forget string) int {
		params["forget"] = forget
		res, _ := check(t, "AODV", params, engine.Options{Search: "random", Steps: 5000, Seed: 1, Keep: true})
		if len(res.Violations) > 0 || len(res.Walk.Steps) != 5000 {
			t.Fatalf("forget=%s: %d violations, a walk of %d steps; want 5000 steps, no violation", forget, len(res.Violations), len(res.Walk.Steps))
		}
		state := map[string]string{}
		for _, l := range res.Walk.Init {
			state[l.Path] = l.Value
		}
		most := 0
		for _, st := range res.Walk.Steps {
			for _, c := range st.Changes {
				if c.Kind == "removed" {
					delete(state, c.Path)
				} else {
					state[c.Path] = c.New
				}
			}
			seen := 0
			for p := range state {
				if strings.HasSuffix(p, ".ID") && strings.Contains(p, ".seen[") {
					seen++
				}
			}
			most = max(most, seen)
		}
		return most
	}
	forgetting, remembering := most("true"), most("false")
	t.Logf("the routers remembered up to %d RREQs together with forget, %d without", forgetting, remembering)
	if forgetting > 40 || remembering < 10*forgetting {
		t.Errorf("up to %d RREQs remembered with forget, %d without; want at most 40 with, and 10 times as many without", forgetting, remembering)
	}
}

// TestModelParameters: the parameters the issue and docs/aodv.md name, their defaults, and
// refusals of values the model cannot take.
func TestModelParameters(t *testing.T) {
	m, err := cmc.Build("AODV", map[string]string{"nodes": "3", "dest": "0"})
	if err != nil {
		t.Fatal(err)
	}
	def, err := m.Definition()
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, e := range def.Events {
		events = append(events, e.Proc+"."+e.Name)
	}
	// Only B and C request routes, to A; A has no route to itself to time out or break.
	want := []string{
		"A.receive",
		"B.request A", "B.timeout A", "B.receive", "B.link to A fails", "B.link to C fails",
		"C.request A", "C.timeout A", "C.receive", "C.link to A fails", "C.link to B fails",
	}
	if !slices.Equal(events, want) {
		t.Errorf("events %q, want %q", events, want)
	}
	for _, bad := range []map[string]string{
		{"nodes": "5"}, {"queue": "0"}, {"dest": "4"}, {"dest": "-2"}, {"hear": "0"}, {"faults": "-2"}, {"requests": "x"},
	} {
		if _, err := cmc.Build("AODVSpecBug", bad); err == nil {
			t.Errorf("%v: built, want an error", bad)
		}
	}
	_, err = cmc.Build("AODVSpecBug", map[string]string{"loss": "true"})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("nodes (default %d)", 4)) ||
		!strings.Contains(err.Error(), "queue (default 3)") || !strings.Contains(err.Error(), "dest (default 3)") {
		t.Errorf("unknown parameter: %v; want the list of parameters with their defaults", err)
	}
}
