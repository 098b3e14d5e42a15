package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/cmc-go/cmc"
)

// A sender numbers its messages (Seq, read: every second one flips Acked) and counts them (Sent,
// a statistic nothing reads); both only grow, so the state space is infinite.
type sender struct {
	Seq   int
	Sent  int
	Acked bool
}

func senderModel(bound func(m *cmc.Model)) *cmc.Model {
	s := &sender{}
	m := cmc.NewModel("Sender")
	p := m.Process("s", s)
	p.On("send", func() {
		s.Sent++
		s.Seq++
		if s.Seq%2 == 0 {
			s.Acked = !s.Acked
		}
	})
	p.On("ack", func() { s.Acked = true }, cmc.When(func() bool { return !s.Acked }))
	if bound != nil {
		bound(m)
	}
	return m
}

// The detector suggests leaving out the statistic, with its evidence, and keeps the sequence
// number, saying which handler reads it. It leaves nothing out itself.
func TestSuggestOmissions(t *testing.T) {
	sl, err := SuggestOmissions(context.Background(), senderModel(nil), 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	typ := cmc.TypeName[sender]()
	if len(sl.Suggest) != 1 || sl.Suggest[0].FieldRef != (FieldRef{typ, "Sent"}) {
		t.Fatalf("suggestions %+v; want %s.Sent only", sl.Suggest, typ)
	}
	s := sl.Suggest[0]
	if s.Code != `m.Omit("`+typ+`", "Sent")` || s.Samples == 0 || s.Changes < minChanges || s.Distinct < 4 || s.Values[0] != 0 ||
		!strings.Contains(s.Why, "only ever increased") || !strings.Contains(s.Why, "changed neither which events were enabled") {
		t.Errorf("suggestion %+v", s)
	}
	if len(sl.Kept) != 1 || sl.Kept[0].Field != "Seq" || !strings.Contains(sl.Kept[0].Why, "s.send changes the rest of the state differently") {
		t.Errorf("kept %+v; want Seq, read by s.send", sl.Kept)
	}
	if sl.Examined != 2 {
		t.Errorf("examined %d integer fields, want 2", sl.Examined)
	}
}

// A bound cuts the states beyond it, like a constraint: the infinite sender becomes finite, and
// the summary's rules list the bound.
func TestBound(t *testing.T) {
	typ := cmc.TypeName[sender]()
	m := senderModel(func(m *cmc.Model) { m.Bound(typ, "Seq", 3); m.Omit(typ, "Sent") })
	res, err := Check(context.Background(), m, Options{Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	// Seq 0..3 with Acked either way are expanded; Seq 4 is reached and cut.
	if !res.Complete || res.States != 10 || res.Cut != 2 {
		t.Errorf("states %d, cut %d, complete %v; want 10 states of which 2 cut, complete", res.States, res.Cut, res.Complete)
	}
	if want := "bound " + typ + ".Seq <= 3"; !strings.Contains(strings.Join(res.Rules, "; "), want) {
		t.Errorf("rules %q lack %q", res.Rules, want)
	}
	for _, c := range []struct {
		field, want string
	}{
		{"Acked", ".Acked is a bool, not an integer"},
		{"Seqq", "no value of type " + typ + " with field Seqq is reachable"},
	} {
		_, err := Check(context.Background(), senderModel(func(m *cmc.Model) { m.Bound(typ, c.field, 1) }), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("bound on %s: %v; want an error containing %q", c.field, err, c.want)
		}
	}
}

// A retransmission timer that is armed, runs down and is armed again goes round three values for
// ever; Distinct bounds how many it may take along a path. The values seen are state, so the
// search stays exact: with a bound of 3 the timer comes back to 0 once more with every value
// seen, and the state space is complete.
type retransmitter struct{ Timer int }

func TestDistinct(t *testing.T) {
	typ := cmc.TypeName[retransmitter]()
	build := func(n int) *cmc.Model {
		r := &retransmitter{}
		m := cmc.NewModel("Retransmit")
		m.Process("r", r).
			On("arm", func() { r.Timer = 2 }, cmc.When(func() bool { return r.Timer == 0 })).
			On("tick", func() { r.Timer-- }, cmc.When(func() bool { return r.Timer > 0 }))
		if n > 0 {
			m.Distinct(typ, "Timer", n)
		}
		return m
	}
	for _, c := range []struct {
		n, states int
		cut       int64
		search    string
	}{
		{0, 3, 0, "bfs"},   // 0, 2, 1
		{2, 3, 1, "bfs"},   // 0 {0}, 2 {0 2}, 1 {0 1 2}: a third value, cut
		{3, 5, 0, "bfs"},   // then 0, 2 and 1 again with all three seen
		{3, 5, 0, "dfs"},   // the same states depth-first
		{3, 5, 0, "exact"}, // and stored exactly
	} {
		opts := Options{Search: c.search, SelfCheck: SelfCheckAll}
		if c.search == "exact" {
			opts = Options{Exact: true, SelfCheck: SelfCheckAll}
		}
		res, err := Check(context.Background(), build(c.n), opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.States != int64(c.states) || res.Cut != c.cut || !res.Complete || len(res.Violations) > 0 {
			t.Errorf("Distinct %d, %s: %d states, %d cut, complete %v, %d violations; want %d states, %d cut, complete",
				c.n, c.search, res.States, res.Cut, res.Complete, len(res.Violations), c.states, c.cut)
		}
		if want := "bound " + typ + ".Timer: at most 3 values along a path"; c.n == 3 && !strings.Contains(strings.Join(res.Rules, "; "), want) {
			t.Errorf("rules %q lack %q", res.Rules, want)
		}
	}
	if _, err := Check(context.Background(), senderModel(func(m *cmc.Model) { m.Distinct(typ, "Timer", 2) }), Options{}); err == nil ||
		!strings.Contains(err.Error(), "no value of type "+typ+" with field Timer is reachable") {
		t.Errorf("a Distinct bound on a type the state does not hold: %v", err)
	}
}
