package replay

import (
	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/engine"
)

// A learner is a component that answers from what a stored trace recorded: env.Peer learns the
// bytes its real peer sent on the trace's path from the steps' io-* notes, so the replay needs
// the peer only where it departs from that path (or, to confirm the peer, asks it once up front).
type learner interface {
	Learn(notes []cmc.Note) error
}

// teach hands every step's notes of t, in order, to m's components that learn from them.
func teach(m *cmc.Model, t *engine.Trace) error {
	var notes []cmc.Note
	for _, c := range m.Components() {
		l, ok := c.Root.Interface().(learner)
		if !ok {
			continue
		}
		if notes == nil {
			for _, st := range t.Steps {
				notes = append(notes, st.Notes...)
			}
		}
		if err := l.Learn(notes); err != nil {
			return err
		}
	}
	return nil
}
