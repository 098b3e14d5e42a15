package aodv

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
)

// TestWhatIf asks what the loop's trace could have done instead at step 12, where A receives
// C's stale RERR: the alternatives are the other packet A could have taken from the air, then
// the other events enabled in that state. Branching with the step as it was gives back the loop
// trace, hash for hash; branching with the other packet gives a trace whose step 12 differs and
// reaches another state.
func TestWhatIf(t *testing.T) {
	tr := record(t, "AODVSpecBug", shortestLoop)
	m := func() *cmc.Model {
		m, err := cmc.Build("AODVSpecBug", nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	alts, err := engine.Alternatives(m(), tr, 12)
	if err != nil {
		t.Fatal(err)
	}
	var whats []string
	for _, a := range alts {
		whats = append(whats, a.What)
	}
	t.Logf("alternatives at step 12:\n%s", strings.Join(whats, "\n"))
	if len(alts) < 2 || !strings.HasPrefix(alts[0].What, "Choose #1 at aodv/air.go:150 = 0 of 2: deliver RREP C→A") || alts[0].Proc != "A" || alts[0].Event != "receive" ||
		!strings.HasSuffix(alts[len(alts)-1].What, " instead") {
		t.Fatalf("alternatives: %q; want the other packet first, then other events", whats)
	}

	same, err := engine.Branch(m(), tr, 12, engine.Alternative{Proc: "A", Event: "receive", Values: tr.Steps[11].Values()})
	if err != nil {
		t.Fatal(err)
	}
	if len(same.Steps) != 12 || same.Violation != nil {
		t.Fatalf("the same step: %d steps, violation %v", len(same.Steps), same.Violation)
	}
	for i := range same.Steps {
		if same.Steps[i].Hash != tr.Steps[i].Hash {
			t.Fatalf("the same step 12: step %d reaches %s, the loop trace %s", i+1, same.Steps[i].Hash, tr.Steps[i].Hash)
		}
	}

	other, err := engine.Branch(m(), tr, 12, alts[0])
	if err != nil {
		t.Fatal(err)
	}
	last := other.Steps[11]
	t.Logf("what if %s: %s.%s %v, violation %v", alts[0].What, last.Proc, last.Event, last.Choices, other.Violation)
	if len(other.Steps) != 12 || other.Steps[10].Hash != tr.Steps[10].Hash || last.Hash == tr.Steps[11].Hash ||
		last.Choices[0].Value != alts[0].Values[0] || last.Choices[0].Label == tr.Steps[11].Choices[0].Label {
		t.Fatalf("the other packet: %+v", last)
	}
	if _, err := engine.Branch(m(), tr, 12, engine.Alternative{Proc: "A", Event: "timeout D"}); err == nil || !strings.Contains(err.Error(), "not enabled before step 12") {
		t.Fatalf("a disabled event: %v", err)
	}
}
