package aodv

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/views"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// shortestLoop is the trace breadth-first search finds (TestSpecBugShortest pins its outline),
// as steps to record without the half-minute search: each step's process, event and Choose values.
var shortestLoop = []engine.Step{
	step("A", "request D"),
	step("B", "request D"),
	step("A", "receive", 0),
	step("C", "receive", 0, 0),
	step("D", "receive", 1, 0),
	step("C", "receive", 1, 0),
	step("C", "link to D fails"),
	step("C", "receive"),
	step("D", "receive"),
	step("C", "receive"),
	step("A", "receive", 1),
	step("A", "receive", 1),
	step("B", "receive", 0),
	step("A", "request D"),
	step("B", "receive", 1),
	step("A", "receive", 0),
}

func step(proc, event string, values ...int) engine.Step {
	s := engine.Step{Proc: proc, Event: event}
	for _, v := range values {
		s.Choices = append(s.Choices, engine.Choice{Value: v})
	}
	return s
}

// record records steps in the model named model, as a trace of that model.
func record(t *testing.T, model string, steps []engine.Step) *engine.Trace {
	t.Helper()
	m, err := cmc.Build(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	mc, init, err := engine.NewMachine(m)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	tr, _, _, err := mc.Record(init, steps)
	if err != nil {
		t.Fatal(err)
	}
	tr.Model = model
	return tr
}

// TestLoopDiff pins what the views' diff panel shows at step 13 of the shortest loop, where B
// takes A's reply and learns its route to D through A: the reply leaves the air and B's table
// gains two routes. Before set elements were named by value and route entries by destination
// (issue #18), the panel said "46 changed of 178": the packets after the delivered one "changed"
// into one another by position (net.Pending[1].Msg.Type RERR -> RREP) and the last slot was
// removed: 29 rows about the air for one packet taken, around B's new routes. Then it said "30
// changed of 175": one row per field of the packet taken and of B's two new routes. Now an element
// added or removed whole is one row (canon.Wholes): "4 changed of 149", the loop's real changes.
// The golden file is the panel with unchanged rows hidden; trace show lists the same 4 (the trace
// stores the step's 30 changes per leaf). Run with -update to rewrite it.
//
// Every stored state is checked too: folding the trace's changes, by path, gives the state the
// model has, so the debugger (which shows states from the changes) shows the right one.
func TestLoopDiff(t *testing.T) {
	m, err := cmc.Build("AODVSpecBug", nil)
	if err != nil {
		t.Fatal(err)
	}
	mc, init, err := engine.NewMachine(m)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	tr, last, _, err := mc.Record(init, shortestLoop)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := mc.Verdict(last, nil); err != nil || v == nil || v.Name != "NoRoutingLoop" {
		t.Fatalf("the recorded trace ends in %v, %v; want the routing loop", v, err)
	}

	state, s := tr.Init, init
	var golden string
	for i, st := range tr.Steps {
		state = store.Apply(state, st.Changes)
		if _, s, _, err = mc.Record(s, shortestLoop[i:i+1]); err != nil {
			t.Fatal(err)
		}
		want, err := mc.Leaves(s)
		if err != nil {
			t.Fatal(err)
		}
		if d := canon.Diff(want, state); len(d) != 0 {
			t.Errorf("step %d: the stored state differs from the model's: %v", i+1, d)
		}
		if i+1 == 13 {
			golden = panel(state, st)
		}
	}
	// trace show (tracefmt) prints the same changes, one line each.
	var text strings.Builder
	if err := tracefmt.Write(&text, tr); err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(text.String(), "\n13  B  receive")
	block, _, _ = strings.Cut(block, "\n14  ")
	rows := 0
	for _, line := range strings.Split(block, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "~ ") || strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "- ") {
			rows++
		}
	}
	if rows != 4 || len(tr.Steps[12].Changes) != 30 {
		t.Errorf("trace show lists %d changes at step 13 (stored: %d), want 4 (30):%s", rows, len(tr.Steps[12].Changes), block)
	}

	file := filepath.Join("testdata", "loop-step13.txt")
	if *update {
		if err := os.WriteFile(file, []byte(golden), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if golden != string(want) {
		t.Errorf("step 13's diff changed (run with -update to accept):\n%s", golden)
	}
}

// panel renders the diff panel of a step with unchanged rows hidden.
func panel(state []canon.Leaf, st engine.Step) string {
	all := views.FilterDiff(views.StateDiff(state, st.Changes), views.DiffFilter{})
	shown := views.FilterDiff(views.StateDiff(state, st.Changes), views.DiffFilter{HideUnchanged: true})
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d changed of %d\n", st.Proc, st.Event, all.Changes, all.Total)
	for _, r := range shown.Rows {
		switch r.Kind {
		case views.Added:
			fmt.Fprintf(&b, "+ %s  %s\n", r.Path, r.New)
		case views.Removed:
			fmt.Fprintf(&b, "- %s  %s\n", r.Path, r.Old)
		default:
			fmt.Fprintf(&b, "~ %s  %s -> %s\n", r.Path, r.Old, r.New)
		}
	}
	return b.String()
}
