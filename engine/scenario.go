package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cmc-go/cmc"
)

// A ScenarioResult says whether a search reached a scenario (cmc.Model.Sometimes).
type ScenarioResult struct {
	Name    string `json:"name"`
	Reached bool   `json:"reached"`
	// States is how many states the search had stored when it first reached the scenario.
	States int64 `json:"states,omitempty"`
	// Progress is the best progress of any state the search stored, when the scenario measures it.
	Progress *int `json:"progress,omitempty"`
	// Trace leads to the first state that reached the scenario, or, when none did, to the first of
	// the best progress. Its Violation has kind "scenario" and says which.
	Trace *Trace `json:"trace,omitempty"`
}

// scenarios follows the model's scenarios through a search: on every state stored, each one not
// yet reached is evaluated on the live values.
type scenarios struct {
	list    []cmc.Scenario
	goal    int     // index of Options.Goal in list, -1 for none
	reached []int32 // trail index of the first state that reached it, -1 if none
	states  []int64
	best    []int
	bestAt  []int32 // trail index of the first state of the best progress, -1 if none yet
}

func newScenarios(def *cmc.Definition, opts Options) (*scenarios, error) {
	goal := opts.Goal
	if opts.Search == "random" {
		// A walk keeps no trail to record a scenario's trace from: it evaluates none.
		if goal != "" {
			return nil, fmt.Errorf("goal %q: a random walk does not evaluate scenarios; search with bfs, dfs, best, deepen or swarm", goal)
		}
		return &scenarios{goal: -1}, nil
	}
	sc := &scenarios{list: def.Scenarios, goal: -1}
	var names []string
	for i, x := range sc.list {
		names = append(names, x.Name)
		if x.Name == goal {
			sc.goal = i
		}
		sc.reached = append(sc.reached, -1)
		sc.states = append(sc.states, 0)
		sc.best = append(sc.best, 0)
		sc.bestAt = append(sc.bestAt, -1)
	}
	if goal != "" && sc.goal < 0 {
		if len(names) == 0 {
			return nil, fmt.Errorf("goal %q: model %s declares no scenarios (add one with m.Sometimes)", goal, def.Name)
		}
		return nil, fmt.Errorf("goal %q: model %s declares no such scenario; it has %s", goal, def.Name, strings.Join(names, ", "))
	}
	return sc, nil
}

// goalScenario is the search's goal, or nil.
func (sc *scenarios) goalScenario() *cmc.Scenario {
	if sc.goal < 0 {
		return nil
	}
	return &sc.list[sc.goal]
}

// sometimes evaluates the scenarios on the live state, stored at trail index idx. Reaching the
// goal stops the search.
func (s *search) sometimes(idx int32) {
	s.scenariosAt(idx, func(i int) scenarioEval { return s.mc.evalScenario(&s.scenarios.list[i]) })
}

// A scenarioEval is what one scenario's functions said of one state.
type scenarioEval struct {
	reached  bool
	progress int
	fail     *Failure
}

// evalScenario runs a scenario's functions on the live state.
func (mc *Machine) evalScenario(x *cmc.Scenario) (e scenarioEval) {
	e.fail, _ = mc.Guard("scenario", x.Name, func() error {
		e.reached = x.Reached()
		if !e.reached && x.Progress != nil {
			e.progress = x.Progress()
		}
		return nil
	})
	return e
}

// scenariosAt takes what eval says of each scenario not yet reached, for the state stored at
// trail index idx: on the search's machine (sometimes), or as a parallel search's worker found it
// on its own (parallel.go).
func (s *search) scenariosAt(idx int32, eval func(i int) scenarioEval) {
	sc := s.scenarios
	for i := range sc.list {
		if sc.reached[i] >= 0 {
			continue
		}
		e := eval(i)
		switch {
		case e.fail != nil:
			s.violation(idx, nil, guideFailure(e.fail))
		case e.reached:
			sc.reached[i], sc.states[i] = idx, s.res.States
			if i == sc.goal {
				s.stop = true
			}
		case sc.list[i].Progress != nil && (sc.bestAt[i] < 0 || e.progress > sc.best[i]):
			sc.best[i], sc.bestAt[i] = e.progress, idx
		}
	}
}

// scenarioResults reports each scenario, recording its trace from the trail.
func (s *search) scenarioResults() {
	sc := s.scenarios
	for i, x := range sc.list {
		r := ScenarioResult{Name: x.Name}
		at, msg := sc.reached[i], "reached"
		if at >= 0 {
			r.Reached, r.States = true, sc.states[i]
		} else if x.Progress != nil && sc.bestAt[i] >= 0 {
			r.Progress = &sc.best[i]
			at, msg = sc.bestAt[i], fmt.Sprintf("not reached; best progress %d", sc.best[i])
		}
		if at >= 0 {
			t, _, _, err := s.mc.record(s.init, s.pathTo(at))
			if err == nil {
				t.Violation = NewViolation("scenario", x.Name, msg, "")
				r.Trace = t
			}
		}
		s.res.Scenarios = append(s.res.Scenarios, r)
	}
}

// progress is what a progress report says of the search so far.
func (s *search) progress(depth, frontier int) Progress {
	p := Progress{States: s.res.States, Transitions: s.res.Transitions, Depth: depth, Frontier: frontier,
		Score: slices.Clone(s.score), Scenarios: len(s.scenarios.list)}
	for _, at := range s.scenarios.reached {
		if at >= 0 {
			p.Reached++
		}
	}
	return p
}
