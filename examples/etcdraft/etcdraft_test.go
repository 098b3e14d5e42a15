package etcdraft

import (
	"testing"

	"github.com/cmc-go/cmc/cmctest"
	"github.com/cmc-go/cmc/engine"
)

// The self-check runs on the first transitions only here (the engine's default), not on every
// one as cmctest would: it would triple the time of these searches.
var opts = engine.Options{Search: "bfs", SelfCheck: engine.DefaultSelfCheck}

// The correct Ready loop keeps every safety property of the Raft paper within the bounds: the
// search is complete.
func TestEtcdRaftIsSafe(t *testing.T) {
	res := cmctest.Check(t, New("EtcdRaft", Defaults, false), opts)
	if res.States != 118422 || !res.Complete {
		t.Fatalf("EtcdRaft: %d states, complete %v; want 118422, complete", res.States, res.Complete)
	}
}

// Sending a Ready's messages before persisting it loses an acknowledged entry when the node
// crashes in between: the shortest trace is 24 steps, and a leader of a later term lacks an entry
// another node applied.
func TestSendBeforePersistLosesACommittedEntry(t *testing.T) {
	tr := cmctest.Violates(t, New("EtcdRaftSendBeforePersist", Defaults, true), opts)
	if v := tr.Violation; v.Name != "LeaderCompleteness" || len(tr.Steps) != 24 {
		t.Fatalf("%s %s after %d steps; want LeaderCompleteness after 24", v.Kind, v.Name, len(tr.Steps))
	}
}

// With more messages in flight and no proposal, the same mistake lets a node vote twice in one
// term: two leaders in term 1, after 10 steps.
func TestSendBeforePersistVotesTwice(t *testing.T) {
	b := Bounds{Elections: 2, Crashes: 1, InFlight: 4}
	tr := cmctest.Violates(t, New("EtcdRaftSendBeforePersist", b, true), opts)
	if v := tr.Violation; v.Name != "ElectionSafety" || len(tr.Steps) != 10 {
		t.Fatalf("%s %s after %d steps; want ElectionSafety after 10", v.Kind, v.Name, len(tr.Steps))
	}
}
