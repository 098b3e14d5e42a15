package engine

import (
	"slices"
	"strings"
	"testing"
)

// cursorTrace has a step with two Choose calls, one with none and one with one.
var cursorTrace = &Trace{Steps: []Step{
	{Proc: "p", Event: "a", Choices: []Choice{{Value: 0, N: 2}, {Value: 1, N: 3}}},
	{Proc: "p", Event: "b"},
	{Proc: "q", Event: "c", Choices: []Choice{{Value: 1, N: 2}}},
}}

func TestCursorStepInWalksEveryPlace(t *testing.T) {
	tr := cursorTrace
	var walk []string
	c := After(0)
	for {
		walk = append(walk, c.String())
		next, ok := tr.StepIn(c)
		if !ok {
			break
		}
		if c.Compare(next) >= 0 || next.Compare(c) <= 0 {
			t.Fatalf("%s is not after %s", next, c)
		}
		if back, ok := tr.StepInBack(next); !ok || back != c {
			t.Fatalf("StepInBack(%s) = %s, want %s", next, back, c)
		}
		if err := tr.Check(next); err != nil {
			t.Fatal(err)
		}
		c = next
	}
	want := "step 0|step 1, choice 1|step 1, choice 2|step 1|step 2|step 3, choice 1|step 3"
	if got := strings.Join(walk, "|"); got != want {
		t.Fatalf("walk\n got %s\nwant %s", got, want)
	}
	if c != tr.End() {
		t.Fatalf("walk ends at %s, not %s", c, tr.End())
	}
	if _, ok := tr.StepInBack(After(0)); ok {
		t.Fatal("StepInBack moved from the initial state")
	}
}

func TestCursorStepOverAndBack(t *testing.T) {
	tr := cursorTrace
	for _, tc := range []struct {
		from       Cursor
		over, back Cursor
		overOK     bool
		backOK     bool
	}{
		{After(0), After(1), After(0), true, false},
		{Cursor{1, 2}, After(1), After(0), true, true},
		{After(1), After(2), After(0), true, true},
		{Cursor{3, 1}, After(3), After(2), true, true},
		{After(3), After(3), After(2), false, true},
	} {
		if got, ok := tr.StepOver(tc.from); got != tc.over || ok != tc.overOK {
			t.Errorf("StepOver(%s) = %s %v, want %s %v", tc.from, got, ok, tc.over, tc.overOK)
		}
		if got, ok := tr.StepBack(tc.from); got != tc.back || ok != tc.backOK {
			t.Errorf("StepBack(%s) = %s %v, want %s %v", tc.from, got, ok, tc.back, tc.backOK)
		}
	}
}

func TestCursorCallsAndShownState(t *testing.T) {
	tr := cursorTrace
	if c := (Cursor{1, 2}); tr.Call(c) != &tr.Steps[0].Choices[1] || len(tr.Made(c)) != 2 || c.Shown() != 0 {
		t.Fatalf("inside step 1 at its 2nd Choose: call %v, made %v, shown %d", tr.Call(c), tr.Made(c), c.Shown())
	}
	if c := (Cursor{1, 1}); !slices.Equal(tr.Made(c), tr.Steps[0].Choices[:1]) {
		t.Fatalf("made at the 1st Choose: %v", tr.Made(c))
	}
	if c := After(1); tr.Call(c) != nil || len(tr.Made(c)) != 2 || c.Shown() != 1 {
		t.Fatalf("after step 1: call %v, made %v, shown %d", tr.Call(c), tr.Made(c), c.Shown())
	}
	for _, bad := range []Cursor{{-1, 0}, {4, 0}, {0, 1}, {2, 1}, {1, 3}, {1, -1}} {
		if tr.Check(bad) == nil {
			t.Errorf("%+v is accepted", bad)
		}
	}
}
