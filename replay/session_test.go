package replay

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

func build(t testing.TB, name string, params map[string]string) *cmc.Model {
	t.Helper()
	m, err := cmc.Build(name, params)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// check returns the first violation's trace, or the kept walk.
func check(t testing.TB, name string, params map[string]string, opts engine.Options) *engine.Trace {
	t.Helper()
	res, err := engine.Check(context.Background(), build(t, name, params), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) > 0 {
		return res.Violations[0]
	}
	if res.Walk == nil {
		t.Fatalf("%s: no violation and no walk", name)
	}
	return res.Walk
}

// Every view's diff is the change the trace stored for that step, and every state's leaves are
// the stored initial state with the changes folded in, at random positions of a long walk. The
// view computes its diff from the whole states; the trace stored one of the touched components
// only.
func TestViewsMatchStoredTrace(t *testing.T) {
	for _, c := range []struct {
		model  string
		params map[string]string
	}{
		{"ring", map[string]string{"N": "4", "K": "7"}},
		{longModel, longParams},
	} {
		t.Run(c.model, func(t *testing.T) {
			tr := check(t, c.model, c.params, engine.Options{Search: "random", Steps: 2000, Keep: true, Seed: 7})
			if len(tr.Steps) != 2000 {
				t.Fatalf("the walk stopped after %d steps", len(tr.Steps))
			}
			s, err := Open(build(t, c.model, c.params), tr)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 0))
			for range 200 {
				n := rng.IntN(len(tr.Steps) + 1)
				if err := s.GoTo(n); err != nil {
					t.Fatal(err)
				}
				v, err := s.View()
				if err != nil {
					t.Fatal(err)
				}
				if n > 0 && !slices.Equal(v.Diff, tr.Steps[n-1].Changes) {
					t.Fatalf("step %d: view diff %v, stored %v", n, v.Diff, tr.Steps[n-1].Changes)
				}
				if d := canon.Diff(storedLeaves(tr, n), v.Leaves); len(d) > 0 {
					t.Fatalf("step %d: view leaves differ from the stored state: %v", n, d)
				}
				if n > 0 && v.Hash != tr.Steps[n-1].Hash {
					t.Fatalf("step %d: hash %s, stored %s", n, v.Hash, tr.Steps[n-1].Hash)
				}
			}
		})
	}
}

func TestTwoPhaseWalkReplays(t *testing.T) {
	params := map[string]string{"RM": "3"}
	tr := check(t, "TwoPhase", params, engine.Options{Search: "random", Steps: 50, Keep: true, Seed: 3})
	s, err := Open(build(t, "TwoPhase", params), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Verified() != len(tr.Steps) {
		t.Fatalf("verified %d of %d steps", s.Verified(), len(tr.Steps))
	}
	for s.Step() == nil {
	}
	for s.Back() == nil {
	}
	if p := s.Position(); p != (engine.Cursor{}) {
		t.Fatalf("after stepping back to the start: %v", p)
	}
}

// A handler that uses map iteration order diverges on replay, and the divergence says the code is
// nondeterministic. Go randomises the order, so a run can match by chance: try a few traces. (The
// search's self-check reports the handler before storing a trace; it is off here to get one.)
func TestMapOrderIsNondeterministic(t *testing.T) {
	for try := range 5 {
		tr := check(t, "maporder", nil, engine.Options{Search: "random", Steps: 3, Keep: true, Seed: uint64(try + 1), SelfCheck: -1})
		s, err := Open(build(t, "maporder", nil), tr)
		if s != nil {
			s.Close()
		}
		if err == nil {
			continue
		}
		d, ok := AsDivergence(err)
		if !ok {
			t.Fatalf("want a *Divergence, got %v", err)
		}
		if !d.Nondeterministic || d.Kind != "state" || d.Proc != "p" || d.Event != "pick" || len(d.Changes) == 0 {
			t.Fatalf("divergence %+v", d)
		}
		if !strings.Contains(d.Error(), "nondeterministic: look for map iteration order") {
			t.Fatalf("message does not name the culprits: %s", d)
		}
		return
	}
	t.Fatal("five traces of a map-order-dependent handler all replayed: map order is not randomised?")
}

// A divergence is an error value the caller can take apart.
func TestDivergenceFields(t *testing.T) {
	tr := check(t, "relay", nil, engine.Options{})
	s, err := Open(build(t, "relay-double", nil), tr)
	if s == nil {
		t.Fatal(err)
	}
	defer s.Close()
	var d *Divergence
	if !errors.As(err, &d) {
		t.Fatalf("want a *Divergence, got %v", err)
	}
	want := &Divergence{Step: 3, Proc: "b", Event: "recv", Kind: "state", Reason: "the code reaches a different state",
		Changes: []canon.Change{{Path: "b.Sum", Kind: "changed", Old: "2", New: "4"}}}
	got, _ := json.Marshal(d)
	wantJS, _ := json.Marshal(want)
	if string(got) != string(wantJS) {
		t.Fatalf("divergence\n got %s\nwant %s", got, wantJS)
	}
	if s.Verified() != 2 || s.Summary().OK() {
		t.Fatalf("verified %d, summary %+v", s.Verified(), s.Summary())
	}
}

// Minimising a depth-first trace gives the breadth-first length, with the same signature.
func TestMinimizeToShortest(t *testing.T) {
	dfs := check(t, "relay", nil, engine.Options{Search: "dfs"})
	bfs := check(t, "relay", nil, engine.Options{Search: "bfs"})
	if len(dfs.Steps) <= len(bfs.Steps) {
		t.Fatalf("the test needs a longer DFS trace: dfs %d, bfs %d steps", len(dfs.Steps), len(bfs.Steps))
	}
	m, shortest, err := Minimize(func() *cmc.Model { return build(t, "relay", nil) }, dfs, 0)
	if err != nil || !shortest {
		t.Fatalf("minimize: %v, shortest %v; want the breadth-first trace", err, shortest)
	}
	if len(m.Steps) != len(bfs.Steps) || m.Violation.Signature != dfs.Violation.Signature {
		t.Fatalf("minimized to %d steps (%s), want %d (%s)", len(m.Steps), m.Violation.Signature, len(bfs.Steps), dfs.Violation.Signature)
	}
}

// When the breadth-first search is too big (here: over 1 state), Minimize deletes steps: the result still ends in the
// violation and no single step can be dropped from it.
func TestMinimizeByDeletingSteps(t *testing.T) {
	var long *engine.Trace
	for seed := uint64(1); long == nil || len(long.Steps) < 8; seed++ {
		long = check(t, "noisy", nil, engine.Options{Search: "random", Seed: seed, Steps: 100})
	}
	m, shortest, err := Minimize(func() *cmc.Model { return build(t, "noisy", nil) }, long, 1)
	if err != nil || shortest {
		t.Fatalf("minimize: %v, shortest %v; want steps deleted, not a search", err, shortest)
	}
	if len(m.Steps) != 3 || m.Violation.Signature != long.Violation.Signature {
		t.Fatalf("minimized %d steps to %d (%s)", len(long.Steps), len(m.Steps), m.Violation.Signature)
	}
	mc, init, err := engine.NewMachine(build(t, "noisy", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	if _, v := reach(mc, init, m.Steps, m.Violation.Signature); v == nil {
		t.Fatal("the minimized trace does not reach the violation")
	}
	for i := range m.Steps {
		if _, v := reach(mc, init, slices.Delete(slices.Clone(m.Steps), i, i+1), m.Violation.Signature); v != nil {
			t.Fatalf("dropping step %d still reaches the violation: not 1-minimal", i+1)
		}
	}
	t.Logf("%d steps -> %d", len(long.Steps), len(m.Steps))
}

// A session lets another machine run while it is idle (a check in the same worker).
func TestSessionDoesNotBlockChecks(t *testing.T) {
	tr := check(t, "relay", nil, engine.Options{})
	s, err := Open(build(t, "relay", nil), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(t, "relay", nil, engine.Options{})
	if err := s.GoTo(2); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.GoTo(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("GoTo on a closed session: %v", err)
	}
}

// The last step of a trace that hung during the search is not run again.
func TestHangIsNotRerun(t *testing.T) {
	tr := check(t, "relay", nil, engine.Options{})
	last := &tr.Steps[len(tr.Steps)-1]
	last.Hash, last.Changes = 0, nil
	tr.Violation = engine.NewViolation("hang", "", "the handler did not return within 10s (an infinite loop?)", last.Site)
	s, err := Open(build(t, "relay", nil), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sum := s.Summary()
	want := "replayed 3 of 4 steps of the trace: every state hash matches; step 4 hung during the search " +
		"(the handler did not return within 10s (an infinite loop?)); replay does not run it again"
	if s.Verified() != 3 || !sum.OK() || sum.Describe("the trace") != want {
		t.Fatalf("verified %d, %s", s.Verified(), sum.Describe("the trace"))
	}
	if err := s.GoTo(4); err == nil {
		t.Fatal("went to the step that hung")
	}
}
