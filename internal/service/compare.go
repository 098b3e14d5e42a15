package service

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
)

// A Comparison says where two stored traces part and how their states differ from there: what a
// user asks after a re-check from a bookmark (before and after a fix) or a branch.
type Comparison struct {
	A TraceSide `json:"a"`
	B TraceSide `json:"b"`
	// Same is how many steps both traces take alike: the same process, event and Choose values,
	// reaching the same state. -1 when even their initial states differ.
	Same int `json:"same"`
	// Steps are the pairs of steps at the same index from the first that differs, to the end of
	// the longer trace or the limit Compare was given; More counts the pairs left out.
	Steps []StepPair `json:"steps"`
	More  int        `json:"more,omitempty"`
}

// A TraceSide is one of the traces compared.
type TraceSide struct {
	ID        int64  `json:"id"`
	Model     string `json:"model"`
	Steps     int    `json:"steps"`
	Violation string `json:"violation,omitempty"`
}

// A StepPair is step N of both traces (nil where a trace has ended), and how the state after it
// differs from A's to B's (an element only one of them has is one change, canon.Wholes).
type StepPair struct {
	N     int            `json:"n"`
	A     *engine.Step   `json:"a,omitempty"`
	B     *engine.Step   `json:"b,omitempty"`
	State []canon.Change `json:"state"`
}

// Traces are what Compare reads: stored traces and the states along them.
type Traces interface {
	Trace(id int64) (*engine.Trace, error)
	State(id int64, step int) ([]canon.Leaf, error)
}

// storeTraces reads a store as Traces.
type storeTraces struct{ *store.Store }

func (s storeTraces) Trace(id int64) (*engine.Trace, error) {
	t, _, err := s.Store.Trace(id)
	return t, err
}

// Compare compares traces a and b of db, with at most limit pairs of steps (0: all of them):
// each pair reads two states, and two long traces that part early differ at every step after.
func Compare(db *store.Store, a, b int64, limit int) (Comparison, error) {
	return CompareIn(storeTraces{db}, a, b, limit)
}

// CompareIn is Compare over any Traces (the views' source).
func CompareIn(db Traces, a, b int64, limit int) (Comparison, error) {
	ta, err := side(db, a)
	if err != nil {
		return Comparison{}, err
	}
	tb, err := side(db, b)
	if err != nil {
		return Comparison{}, err
	}
	c := Comparison{A: ta.side, B: tb.side, Same: sameSteps(ta.t, tb.t)}
	last := max(len(ta.t.Steps), len(tb.t.Steps))
	for n := c.Same + 1; n <= last; n++ {
		if limit > 0 && len(c.Steps) == limit {
			c.More = last - n + 1
			break
		}
		p := StepPair{N: n, A: stepAt(ta.t, n), B: stepAt(tb.t, n)}
		sa, err := db.State(a, min(n, len(ta.t.Steps)))
		if err != nil {
			return c, err
		}
		sb, err := db.State(b, min(n, len(tb.t.Steps)))
		if err != nil {
			return c, err
		}
		p.State = canon.Wholes(canon.Diff(sa, sb), sb)
		c.Steps = append(c.Steps, p)
	}
	return c, nil
}

type loaded struct {
	t    *engine.Trace
	side TraceSide
}

func side(db Traces, id int64) (loaded, error) {
	t, err := db.Trace(id)
	if err != nil {
		return loaded{}, fmt.Errorf("trace %d: %w", id, err)
	}
	s := TraceSide{ID: id, Model: t.Model, Steps: len(t.Steps)}
	if t.Violation != nil {
		s.Violation = tracefmt.Violation(t.Violation)
	}
	return loaded{t, s}, nil
}

// sameSteps is how many steps a and b take alike, or -1 if their initial states differ.
func sameSteps(a, b *engine.Trace) int {
	if a.InitHash != b.InitHash {
		return -1
	}
	n := 0
	for n < len(a.Steps) && n < len(b.Steps) && alike(&a.Steps[n], &b.Steps[n]) {
		n++
	}
	return n
}

func alike(a, b *engine.Step) bool {
	return a.Proc == b.Proc && a.Event == b.Event && a.Hash == b.Hash && slices.Equal(a.Values(), b.Values())
}

// stepAt is step n (counting from 1) of t, or nil.
func stepAt(t *engine.Trace, n int) *engine.Step {
	if n < 1 || n > len(t.Steps) {
		return nil
	}
	return &t.Steps[n-1]
}
