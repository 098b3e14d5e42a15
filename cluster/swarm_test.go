package cluster

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/examples/twophase"
)

// TestSwarmOverJetStream: a swarm's members spread over 2 and 3 processes, each with its own
// connection and instance of the model, meeting through a real NATS server, give the one-process
// swarm's result in process 0: the same counts and the same violations, trace by trace. Process 1
// runs twice (as a process started again after kill -9 does), publishing everything again.
func TestSwarmOverJetStream(t *testing.T) {
	b := startBroker(t)
	cases := []struct {
		name       string
		build      func() *cmc.Model
		opts       engine.Options
		violations int
	}{
		{"TwoPhase RM=5, state bound", func() *cmc.Model { return twophase.New(5) }, engine.Options{MaxStates: 40000}, 0},
		{"two counters, a violation", twoCounters, engine.Options{MaxDepth: 40}, 1},
		{"two counters, all, 5 members", twoCounters, engine.Options{All: true, Members: 5, Seed: 3}, 1},
	}
	for ci, c := range cases {
		opts := c.opts
		opts.Search, opts.Workers, opts.SelfCheck = "swarm", 1, -1
		want, err := engine.Check(context.Background(), c.build(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Violations) != c.violations {
			t.Fatalf("%s: one process found %d violations, want %d", c.name, len(want.Violations), c.violations)
		}
		members := opts.Members
		if members == 0 {
			members = engine.DefaultMembers
		}
		for _, n := range []int{2, 3} {
			run := fmt.Sprintf("sw%d-%d", ci, n)
			// One machine at a time in a process (the engine's lock): the processes run one after
			// another, process 0, which waits for the others' members, last.
			var got *engine.Result
			for _, k := range append([]int{1, 1}, append(seq(2, n), 0)...) {
				var reports []engine.Progress // the Swarm's lock is held
				sw, err := NewSwarm(context.Background(), connect(t, b), run, k, n, members, func(p engine.Progress) { reports = append(reports, p) })
				if err != nil {
					t.Fatal(err)
				}
				got, err = engine.CheckSwarm(context.Background(), c.build(), opts, sw)
				sw.Close()
				if err != nil {
					t.Fatalf("%s, process %d of %d: %v", c.name, k, n, err)
				}
				if k == 0 {
					if last := reports[len(reports)-1]; last.Members != members || last.MembersDone == 0 {
						t.Errorf("%s, %d processes: last progress %+v", c.name, n, last)
					}
					// Member 0 reports as it runs (every 4,096 transitions), before any member is done.
					if first := reports[0]; ci == 0 && (first.MembersDone != 0 || first.States == 0) {
						t.Errorf("%s, %d processes: first progress %+v, want one of member 0 running", c.name, n, first)
					}
				}
			}
			if got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth || got.Complete != want.Complete {
				t.Errorf("%s, %d processes: %d states, %d transitions, depth %d, complete %v; one process %d, %d, %d, %v", c.name, n,
					got.States, got.Transitions, got.Depth, got.Complete, want.States, want.Transitions, want.Depth, want.Complete)
			}
			if !reflect.DeepEqual(got.Violations, want.Violations) {
				t.Errorf("%s, %d processes: violations differ from one process's:\n%+v\n%+v", c.name, n, got.Violations, want.Violations)
			}
			if err := DeleteRun(context.Background(), connect(t, b), run); err != nil {
				t.Error(err)
			}
		}
	}
}

func seq(a, b int) []int {
	var out []int
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// TestSwarmMemberInChunks: what a member found, larger than a message may be, crosses in chunks
// and is whole on the other side.
func TestSwarmMemberInChunks(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	send, err := NewSwarm(ctx, connect(t, b), "chunks", 1, 2, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer send.Close()
	send.chunk = 1000
	w := &engine.SwarmMember{Index: 1, Result: &engine.Result{States: 3000}, Hashes: make([]uint64, 3000)}
	for i := range w.Hashes {
		w.Hashes[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	if err := send.Finished(w); err != nil {
		t.Fatal(err)
	}
	recv, err := NewSwarm(ctx, connect(t, b), "chunks", 0, 2, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	got, err := recv.Member(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Hashes, w.Hashes) || got.Result.States != 3000 {
		t.Errorf("got %d hashes, %d states", len(got.Hashes), got.Result.States)
	}
}

// TestSwarmStopCancelsLaterMembers: a member that stops the swarm in process 0 ends the running
// members after it in process 1, which then starts none after it; a member before it runs on.
func TestSwarmStopCancelsLaterMembers(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	p1, err := NewSwarm(ctx, connect(t, b), "stop", 1, 2, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p1.Close()
	before, cancelBefore := p1.Start(ctx, 1)
	defer cancelBefore()
	after, cancelAfter := p1.Start(ctx, 3)
	defer cancelAfter()
	p0, err := NewSwarm(ctx, connect(t, b), "stop", 0, 2, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p0.Close()
	if err := p0.Finished(&engine.SwarmMember{Index: 2, Result: &engine.Result{}, Stop: true}); err != nil {
		t.Fatal(err)
	}
	<-after.Done() // member 3 is cancelled (the test's timeout is the bound)
	if before.Err() != nil {
		t.Error("member 1, before the stop, was cancelled")
	}
	if c, _ := p1.Start(ctx, 5); c != nil {
		t.Error("member 5, after the stop, was started")
	}
}
