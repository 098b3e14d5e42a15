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
}

func (b Bound) String() string { return fmt.Sprintf("bound %s.%s <= %d", b.Type, b.Field, b.Max) }

// Bound cuts every state in which field of a value of type typ is above max. typ is named as for
// Omit (TypeName gives it); the field must be an integer. A bound whose type is not reachable from
// the model's state, or whose field is not an integer, fails the check. The run summary lists the
// bounds with the rules.
func (m *Model) Bound(typ, field string, max int64) {
	m.bounds = append(m.bounds, Bound{Type: typ, Field: field, Max: max})
}
