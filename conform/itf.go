package conform

import (
	"encoding/json"
	"fmt"
	"io"
)

// ITF is the Informal Trace Format of Apalache and Quint (ADR-015): a trace is a list of states,
// each a record of the trace's variables. A trace fits conformance when three of its variables
// say, in each state, the event the step handled, the actions it took and the specification
// state it reached: ITFNames names them. State 0 is where the run starts (its event, if any, is
// checked as a first step). A string is a JSON string; actions are a list, a set ({"#set": [...]})
// or a tuple ({"#tup": [...]}) of strings; an absent or empty event is no event, an absent state a
// step between two specification states.
type ITFNames struct {
	Event, Actions, State string
}

// DefaultITFNames are the variables "event", "actions" and "state".
var DefaultITFNames = ITFNames{Event: "event", Actions: "actions", State: "state"}

// ReadITF reads an ITF trace as steps; a step's Where is its state's index.
func ReadITF(r io.Reader, names ITFNames) ([]Step, error) {
	var t struct {
		States []map[string]json.RawMessage `json:"states"`
	}
	if err := json.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("ITF trace: %w; want an object with \"states\", as Apalache and Quint write", err)
	}
	var steps []Step
	for i, st := range t.States {
		s := Step{Line: i + 1, Where: fmt.Sprintf("ITF state %d", i)}
		if raw, ok := st[names.Event]; ok {
			if err := json.Unmarshal(raw, &s.Event); err != nil {
				return nil, fmt.Errorf("ITF state %d: %s: %w; want a string", i, names.Event, err)
			}
		}
		if raw, ok := st[names.Actions]; ok {
			acts, err := itfStrings(raw)
			if err != nil {
				return nil, fmt.Errorf("ITF state %d: %s: %w", i, names.Actions, err)
			}
			s.Actions = acts
		}
		if raw, ok := st[names.State]; ok {
			var name string
			if err := json.Unmarshal(raw, &name); err != nil {
				return nil, fmt.Errorf("ITF state %d: %s: %w; want a string", i, names.State, err)
			}
			s.State = &name
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// itfStrings reads a list, set or tuple of strings.
func itfStrings(raw json.RawMessage) ([]string, error) {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, nil
	}
	var wrapped struct {
		Set []string `json:"#set"`
		Tup []string `json:"#tup"`
	}
	if err := json.Unmarshal(raw, &wrapped); err != nil || (wrapped.Set == nil && wrapped.Tup == nil) {
		return nil, fmt.Errorf("want a list, {\"#set\": [...]} or {\"#tup\": [...]} of strings")
	}
	return append(wrapped.Set, wrapped.Tup...), nil
}
