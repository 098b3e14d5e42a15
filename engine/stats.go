package engine

import "fmt"

// What a search did, event by event: how often each handler ran and how many states were
// expanded, so a user sees which events the search exercised and how wide the state graph is.

// EventRuns is how many times one event's handler ran (every Choose combination is a run).
type EventRuns struct {
	Event string `json:"event"` // Proc.Name
	Site  string `json:"site"`  // the handler's file:line
	Runs  int64  `json:"runs"`
}

// ran counts one handler run of event ei: a transition.
func (s *search) ran(ei int) {
	s.res.Transitions++
	if s.res.runs == nil {
		s.res.runs = make([]int64, len(s.mc.Def.Events))
	}
	s.res.runs[ei]++
}

// expanded counts a state whose enabled events were all run.
func (s *search) expanded() { s.res.Expanded++ }

// eventRuns lists every event of the model, in declaration order, with its runs.
func (s *search) eventRuns() []EventRuns {
	out := make([]EventRuns, len(s.mc.Def.Events))
	for i, ev := range s.mc.Def.Events {
		out[i] = EventRuns{Event: ev.Label, Site: fmt.Sprintf("%s:%d", ev.File, ev.Line)}
		if s.res.runs != nil {
			out[i].Runs = s.res.runs[i]
		}
	}
	return out
}

// Branching is the mean number of handler runs (transitions) per expanded state, or 0 when no
// state was expanded. A random walk expands one state per step and runs one handler, so its
// branching is 1 by construction.
func (r *Result) Branching() float64 {
	if r.Expanded == 0 {
		return 0
	}
	return float64(r.Transitions) / float64(r.Expanded)
}
