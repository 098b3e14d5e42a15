package cmc

import "fmt"

// A Bound is the largest value an integer field may take in the states a search explores: a
// state where any value of type Type has Field above Max is a leaf, as a constraint makes it (it
// is checked, its successors are not explored, and the summary counts it among the states beyond
// the model's bounds). It is how the thesis (3.5) keeps sequence numbers, retransmission counters
// and broadcast ids from making the state space infinite.
type Bound struct {
	Type  string // package path and name, as Omit takes it (TypeName)
	Field string
	Max   int64
	// Values, when not 0, bounds instead how many different values the field may take along a
	// path (Distinct); Max is then unused.
	Values int
}

func (b Bound) String() string {
	if b.Values > 0 {
		return fmt.Sprintf("bound %s.%s: at most %d values along a path", b.Type, b.Field, b.Values)
	}
	return fmt.Sprintf("bound %s.%s <= %d", b.Type, b.Field, b.Max)
}

// Distinct cuts every path on which field of a value of type typ has taken more than n different
// values, where it takes the next one (the thesis, 3.5: a retransmission that is lost and sent
// again brings a protocol back to where it was but for a counter, and a bound on the counter's
// values stops the loop). The values each one has taken are state: a component "values seen"
// holds them, one sorted list per value of typ (named by its path from a component, as the
// debugger shows it), so two paths that reach the same values by different histories stay two
// states, and the search stays exact. typ and field are named as for Bound.
func (m *Model) Distinct(typ, field string, n int) {
	if n < 1 {
		m.fail("Distinct %s.%s: n must be at least 1", typ, field)
		return
	}
	m.bounds = append(m.bounds, Bound{Type: typ, Field: field, Values: n})
	if m.seen == nil {
		m.seen = &ValuesSeen{Seen: map[string][]int64{}}
		m.add("values seen", m.seen, true)
	}
}

// ValuesSeen is the state Distinct adds: for each value a Distinct bound watches (its path and
// field), the different values it has taken on the path to this state, in increasing order.
type ValuesSeen struct {
	Seen map[string][]int64
}

// Bound cuts every state in which field of a value of type typ is above max. typ is named as for
// Omit (TypeName gives it); the field must be an integer. A bound whose type is not reachable from
// the model's state, or whose field is not an integer, fails the check. The run summary lists the
// bounds with the rules.
func (m *Model) Bound(typ, field string, max int64) {
	m.bounds = append(m.bounds, Bound{Type: typ, Field: field, Max: max})
}
