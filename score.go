package cmc

// What guides a best-first search (engine -search best), and what a run should show happening.
// All of these read the live state, like invariants, and must not change it.

// Score ranks states for a best-first search: the engine expands the state with the highest
// score first. More than one function is a score of several levels, compared in order (the
// second breaks ties of the first, as the two-level heuristics of J-Sim's AODV-BeFS-3 and
// DD-BeFS-4 do); states equal on every level are expanded in the order they were found. Calling
// Score again replaces the score.
func (m *Model) Score(levels ...func() int) {
	if len(levels) == 0 {
		m.fail("Score needs at least one function")
		return
	}
	m.scores = levels
}

// Abstract gives the abstract state of the live state, the part that decides its behaviour (a
// protocol control block, a routing table as a sorted list): a best-first search without a Score
// expands first the states whose abstract state it has seen least often (CMC's heuristic class
// 3). The value is compared by its canonical encoding, so it may be any capturable Go value.
func (m *Model) Abstract(abstract func() any) { m.abstract = abstract }

// A Scenario is something a run should show can happen (see Sometimes).
type Scenario struct {
	Name     string
	Reached  func() bool
	Progress func() int // nil: none given
}

// Sometimes declares a scenario: a state where reached returns true should be reachable ("a
// route to D is found", "a node reboots and recovers"). A check reports each scenario as reached,
// with the trace to the first state found, or not reached. progress, if given, measures how close
// a state is (higher is closer): a scenario not reached is reported with the trace to the state of
// the best progress, and a best-first search with the scenario as its goal (-goal) expands the
// states of the best progress first.
func (m *Model) Sometimes(name string, reached func() bool, progress ...func() int) {
	if name == "" || reached == nil || len(progress) > 1 {
		m.fail("Sometimes needs a name, a condition and at most one progress measure")
		return
	}
	s := Scenario{Name: name, Reached: reached}
	if len(progress) == 1 {
		s.Progress = progress[0]
	}
	for _, o := range m.scenarios {
		if o.Name == name {
			m.fail("scenario %q declared twice", name)
			return
		}
	}
	m.scenarios = append(m.scenarios, s)
}
