package engine

import (
	"reflect"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
)

// A guide scores states for best-first search (best.go), on the live values of the state just
// captured. Its levels, compared in order:
//
//   - the goal scenario's progress, when the search has a goal that measures progress
//     (Options.Goal, cmc.Model.Sometimes);
//   - the model's score (cmc.Model.Score), one level per function; or, without one, novelty:
//     how rarely the search has met the state's abstract state (cmc.Model.Abstract, CMC's class
//     3 heuristic), or, without that either, how many of the values the transition wrote the
//     search had never seen at their place in the state (CMC's class 2, after DIDUCE).
//
// Novelty is counted when a state is found, not when it is expanded, so the score of a state
// never changes while it waits and the order stays a function of the model.
type guide struct {
	goal      func() int
	scores    []func() int
	abstract  func() any
	heuristic string // what the levels after the goal are: score, abstract or values

	abstracts map[uint64]int      // abstract state -> how many states had it
	values    map[uint64]struct{} // (path, value) pairs seen
	enc       canon.Encoder
	buf       []byte
	score     []int
}

func newGuide(def *cmc.Definition, goal *cmc.Scenario) *guide {
	g := &guide{scores: def.Scores, abstract: def.Abstract}
	if goal != nil {
		g.goal = goal.Progress
	}
	switch {
	case len(g.scores) > 0:
		g.heuristic = "score"
	case g.abstract != nil:
		g.heuristic, g.abstracts = "abstract", map[uint64]int{}
	default:
		g.heuristic, g.values = "values", map[uint64]struct{}{}
	}
	return g
}

func (g *guide) levels() int {
	n := max(len(g.scores), 1)
	if g.goal != nil {
		n++
	}
	return n
}

// rank scores the live state, reached from parent (nil for the initial state). The score is
// valid until the next call. A panic in the model's functions, or an abstract state that cannot be
// captured, is a Failure.
func (g *guide) rank(mc *Machine, parent, st State) ([]int, *Failure) {
	g.score = g.score[:0]
	var abstract any
	fail, _ := mc.Guard("heuristic", g.heuristic, func() error {
		if g.goal != nil {
			g.score = append(g.score, g.goal())
		}
		for _, f := range g.scores {
			g.score = append(g.score, f())
		}
		if g.abstracts != nil {
			abstract = g.abstract()
		}
		return nil
	})
	switch {
	case fail != nil:
		return nil, fail
	case g.abstracts != nil:
		n, err := g.seenAbstract(abstract)
		if err != nil {
			return nil, &Failure{Kind: "model-error", Message: "the abstract state cannot be captured: " + err.Error()}
		}
		g.score = append(g.score, -n)
	case g.values != nil:
		g.score = append(g.score, g.newValues(mc, parent, st))
	}
	return g.score, nil
}

// seenAbstract counts an abstract state and returns how many states had it before.
func (g *guide) seenAbstract(a any) (int, error) {
	v := reflect.ValueOf(a)
	var h uint64
	if v.IsValid() {
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		b, err := g.enc.EncodeValue(g.buf[:0], p, "abstract")
		if err != nil {
			return 0, err
		}
		g.buf, h = b, canon.Hash(b)
	}
	n := g.abstracts[h]
	g.abstracts[h] = n + 1
	return n, nil
}

// newValues counts the values of the components that differ from parent's whose (path, value)
// the search had not seen, and records them: the components the transition left alone hold
// nothing new.
func (g *guide) newValues(mc *Machine, parent, st State) int {
	n := 0
	for i := range st {
		if parent != nil && parent[i] == st[i] {
			continue
		}
		for _, l := range mc.componentLeaves(i) {
			h := canon.Hash([]byte(l.Path + "\x00" + l.Value))
			if _, ok := g.values[h]; !ok {
				g.values[h] = struct{}{}
				n++
			}
		}
	}
	return n
}
