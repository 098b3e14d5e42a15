package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/internal/transition"
)

// A labelled choice (cmc.ChooseOf) is explored like Choose, and its label is made only when a
// trace is recorded: the search never calls it, the trace says what each value meant.
func TestChooseOfLabelsOnlyTraces(t *testing.T) {
	labels := 0
	c := &counter{}
	m := cmc.NewModel("labelled")
	m.Process("c", c).On("add", func() {
		c.X += cmc.ChooseOf([]int{1, 2}, func(n int) string { labels++; return fmt.Sprintf("add %d", n) })
	}, cmc.When(func() bool { return c.X < 4 }))
	m.Invariant("not3", func() error {
		if c.X == 3 {
			return errors.New("X is 3")
		}
		return nil
	})
	res, err := Check(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.States != 4 || res.Transitions != 4 || len(res.Violations) != 1 {
		t.Fatalf("states %d, transitions %d, %d violations: want 4, 4, 1 (as with cmc.Choose)", res.States, res.Transitions, len(res.Violations))
	}
	var got []string
	for _, st := range res.Violations[0].Steps {
		for _, c := range st.Choices {
			got = append(got, c.String())
		}
	}
	if fmt.Sprint(got) != "[0 of 2: add 1 1 of 2: add 2]" {
		t.Errorf("choices %q, want [0 of 2: add 1] [1 of 2: add 2]", got)
	}
	if labels != len(got) {
		t.Errorf("label called %d times, want %d: once per Choose of the recorded trace, never in the search", labels, len(got))
	}
}

// Choosing among no items is a model error that says what to do.
func TestChooseOfNothing(t *testing.T) {
	c := &counter{}
	m := cmc.NewModel("nothing")
	m.Process("c", c).On("add", func() { c.X += cmc.ChooseOf([]int(nil), nil) })
	res, err := Check(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) != 1 || res.Violations[0].Violation.Kind != "model-error" ||
		res.Violations[0].Violation.Message != "cmc.ChooseOf: no items to choose from: choose only when there is at least one" {
		t.Fatalf("violations %+v, want one model-error about no items", res.Violations)
	}
}

// A labelled choice costs a search what an unlabelled one does: the label's closure is not
// allocated and not called while notes are off.
func TestChooseOfAllocatesNothingInSearch(t *testing.T) {
	c := &counter{}
	items := []int{1, 2}
	labels := 0
	m := cmc.NewModel("allocs")
	p := m.Process("c", c)
	p.On("choose", func() { c.X = items[cmc.Choose(len(items))] })
	p.On("choose-of", func() {
		c.X = cmc.ChooseOf(items, func(n int) string { labels++; return fmt.Sprintf("add %d to %d", n, c.X) })
	})
	mc, _, err := NewMachine(m)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	runs := map[string]float64{}
	for _, name := range []string{"choose", "choose-of"} {
		_, ev := mc.Event("c", name)
		runs[name] = testing.AllocsPerRun(100, func() { mc.Run(ev, []int{1}, false, nil) })
	}
	t.Logf("allocations per run: %v", runs)
	if runs["choose-of"] != runs["choose"] || labels != 0 {
		t.Errorf("a run allocates %v times with Choose, %v with ChooseOf, and called the label %d times; want the same, and 0 calls",
			runs["choose"], runs["choose-of"], labels)
	}
}

// A search's own runs do not look up where each Choose was called (runtime.Callers); the trace of
// a counterexample, replayed, names every choice's line.
func TestSearchSkipsChooseSites(t *testing.T) {
	sites := map[bool]int{}
	c := &counter{}
	m := cmc.NewModel("sites")
	m.Process("c", c).On("add", func() {
		sites[transition.Current("test").Sites()]++
		c.X += 1 + cmc.Choose(2)
	}, cmc.When(func() bool { return c.X < 4 }))
	m.Invariant("not3", func() error {
		if c.X == 3 {
			return errors.New("X is 3")
		}
		return nil
	})
	for _, st := range oneViolation(t, m).Steps {
		for _, ch := range st.Choices {
			if !strings.Contains(ch.Site, "label_test.go:") {
				t.Errorf("a choice of the trace has site %q, want its line in label_test.go", ch.Site)
			}
		}
	}
	if sites[false] == 0 || sites[true] == 0 {
		t.Errorf("runs without sites %d, with sites %d: want the search's runs without, the trace's replay with", sites[false], sites[true])
	}
}
