package replay

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// A View is everything the debugger shows at one position: plain data for the DAP layer and the
// webview, which only draw it.
type View struct {
	Position engine.Cursor `json:"position"`
	Steps    int           `json:"steps"` // in the trace
	Proc     string        `json:"proc,omitempty"`
	Event    string        `json:"event,omitempty"`
	// Site is the handler's file:line at the end of a step, or the current Choose call's inside it.
	Site string      `json:"site,omitempty"`
	Hash engine.Hash `json:"hash,omitempty"` // of the state after the step (not inside one)
	// Graph is the heap of the state, with the objects Diff touched marked Changed. Inside a step
	// it is the live state at the Choose call, halfway through the handler.
	Graph  *canon.Graph   `json:"graph"`
	Leaves []canon.Leaf   `json:"leaves"`
	Diff   []canon.Change `json:"diff"` // from the state before the step
	// Choices are the step's Choose calls; inside a step, Position.Choice is the one stopped at.
	Choices []ChoicePoint `json:"choices"`
	// Notes are what the step recorded (messages sent, delivered, lost): inside a step, those made
	// before the Choose call.
	Notes []engine.Note `json:"notes"`
	// Environment is the shared components (the network: messages in flight, timers), flattened.
	Environment []Component `json:"environment"`
	// Failure is the handler failure the trace ends in, at its last step.
	Failure *engine.Failure `json:"failure,omitempty"`
	// Violation is what replay found at the end of the trace, at its last step.
	Violation *engine.Violation `json:"violation,omitempty"`
}

// A Component is one part of the state, flattened by path.
type Component struct {
	Name   string       `json:"name"`
	Leaves []canon.Leaf `json:"leaves"`
}

// View returns the view at the cursor.
func (s *Session) View() (*View, error) {
	if err := s.use(); err != nil {
		return nil, err
	}
	defer s.done()
	return s.view(s.pos)
}

func (s *Session) view(p engine.Cursor) (*View, error) {
	v := &View{Position: p, Steps: len(s.t.Steps), Choices: []ChoicePoint{}, Notes: []engine.Note{}, Diff: []canon.Change{}}
	var g *canon.Graph
	var err error
	if p.Step > 0 {
		st := &s.t.Steps[p.Step-1]
		v.Proc, v.Event, v.Site = st.Proc, st.Event, st.Site
		v.Choices = choicePoints(st)
	}
	if p.Inside() {
		g, v.Notes, err = s.midStep(p)
		v.Site = s.t.Call(p).Site
	} else {
		g, err = s.mc.Graph(s.state(p.Step))
		if p.Step > 0 {
			v.Notes = append(v.Notes, s.t.Steps[p.Step-1].Notes...)
			v.Hash = engine.Hash(s.mc.Hash(s.state(p.Step)))
		} else {
			v.Hash = s.t.InitHash
		}
	}
	if err != nil {
		return nil, err
	}
	v.Graph, v.Leaves = g, g.Leaves()
	if !p.Inside() {
		s.remember(p.Step, v.Leaves)
	}
	if p.Step > 0 {
		before, err := s.leaves(p.Step - 1)
		if err != nil {
			return nil, err
		}
		v.Diff = canon.Diff(before, v.Leaves)
		g.Mark(v.Diff)
	}
	v.Environment = s.environment(v.Leaves)
	if p == s.t.End() && s.good == p.Step {
		v.Failure, v.Violation = s.fail, s.found
	}
	return v, nil
}

// leaves returns the flattened state after step n, from the cache when it was viewed lately.
func (s *Session) leaves(n int) ([]canon.Leaf, error) {
	if l, ok := s.cache[n]; ok {
		return l, nil
	}
	l, err := s.mc.Leaves(s.state(n))
	if err != nil {
		return nil, err
	}
	s.remember(n, l)
	return l, nil
}

// remember caches a few states' leaves: stepping views each state twice (as "after" and then as
// "before").
func (s *Session) remember(n int, l []canon.Leaf) {
	if len(s.cache) >= 4 {
		clear(s.cache)
	}
	s.cache[n] = l
}

// environment picks the shared components' leaves out of a state's.
func (s *Session) environment(leaves []canon.Leaf) []Component {
	out := []Component{}
	for _, c := range s.mc.Def.Components {
		if !c.Shared {
			continue
		}
		comp := Component{Name: c.Name, Leaves: []canon.Leaf{}}
		for _, l := range leaves {
			if canon.Path(l.Path).Under(canon.Path(c.Name)) {
				comp.Leaves = append(comp.Leaves, l)
			}
		}
		out = append(out, comp)
	}
	return out
}

// stopAtChoice is the panic that stops a handler at a Choose call.
type stopAtChoice struct{}

// midStep re-runs step p.Step's handler up to its p.Choice-th Choose call and returns the graph of
// the live state there, and the notes made so far. The machine restores the state before the next
// use (the handler's components are marked as changed).
func (s *Session) midStep(p engine.Cursor) (*canon.Graph, []engine.Note, error) {
	st := &s.t.Steps[p.Step-1]
	ei, _ := s.mc.Event(st.Proc, st.Event)
	if err := s.mc.Load(s.state(p.Step - 1)); err != nil {
		return nil, nil, err
	}
	stopped := false
	out := s.mc.RunChoosing(ei, true, func(i, n int) int {
		if i < p.Choice-1 && st.Choices[i].Value < n {
			return st.Choices[i].Value
		}
		stopped = true
		panic(stopAtChoice{})
	})
	if !stopped {
		return nil, nil, &Divergence{Step: p.Step, Proc: st.Proc, Event: st.Event, Kind: "choice", Nondeterministic: true,
			Reason: fmt.Sprintf("re-running the handler did not reach Choose call %d again", p.Choice)}
	}
	roots := make([]canon.Root, len(s.mc.Def.Components))
	for i, c := range s.mc.Def.Components {
		roots[i] = canon.Root{Name: c.Name, V: c.Root}
	}
	notes := append([]engine.Note{}, out.Notes...)
	return canon.NewGraph(roots), slices.Clip(notes), nil
}
