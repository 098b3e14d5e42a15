package aodv

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoopChoiceLabels: the air's Choose calls say what they chose (cmc.ChooseOf), so the
// debugger shows "Choose → 1 of 3: deliver RREP C→A" instead of "Choose → 1 of 3". While a fault
// may still happen, a receive takes a packet (which one, when there are several) and then
// delivers or loses it; after that it delivers the one it chose.
func TestLoopChoiceLabels(t *testing.T) {
	tr := record(t, "AODVSpecBug", shortestLoop)
	var got []string
	for i, st := range tr.Steps {
		for _, c := range st.Choices {
			got = append(got, fmt.Sprintf("%d %s %s: %s", i+1, st.Proc, st.Event, c))
		}
	}
	want := []string{
		"3 A receive: 0 of 2: deliver RREQ B→A", // one packet for A; it may be lost
		"4 C receive: 0 of 2: take RREQ A→C",    // two for C: which, then lost or not
		"4 C receive: 0 of 2: deliver RREQ A→C",
		"5 D receive: 1 of 2: take RREQ C→D",
		"5 D receive: 0 of 2: deliver RREQ C→D",
		"6 C receive: 1 of 2: take RREP D→C",
		"6 C receive: 0 of 2: deliver RREP D→C",
		"11 A receive: 1 of 3: deliver RREP C→A", // the fault budget is spent: nothing is lost now
		"12 A receive: 1 of 2: deliver RERR C→A",
		"13 B receive: 0 of 2: deliver RREP A→B",
		"15 B receive: 1 of 2: deliver RREQ A→B",
		"16 A receive: 0 of 2: deliver RREP B→A",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the loop's choices say:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
