package replay

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// A Divergence says where a stored trace stopped matching what the code does, and how.
type Divergence struct {
	Step  int    `json:"step"` // 1-based; 0 is the initial state
	Proc  string `json:"proc,omitempty"`
	Event string `json:"event,omitempty"`
	// Kind is what differs: init (the initial state), event (gone), enabled (not enabled here),
	// choice (the Choose calls), failure (the handler fails now, or no longer), state (the state
	// after the step), violation (every state matches but the trace's violation does not happen),
	// error (the state cannot be captured or restored now).
	Kind   string `json:"kind"`
	Site   string `json:"site,omitempty"` // the Choose call or failure the divergence is at
	Reason string `json:"reason"`         // what differs, in words
	// Nondeterministic: running the step again from the same state gave a different result, so the
	// divergence is the code's nondeterminism, not (only) a change to it.
	Nondeterministic bool `json:"nondeterministic,omitempty"`
	// Changes are the differences from the stored state (the trace's initial state with each
	// step's changes folded in) to the replayed one, by path.
	Changes []canon.Change `json:"changes,omitempty"`
}

// maxShownChanges bounds the differences Error lists; Changes has them all.
const maxShownChanges = 12

func (d *Divergence) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay diverged at step %d", d.Step)
	if d.Proc != "" {
		fmt.Fprintf(&b, " (%s, %s)", d.Proc, d.Event)
	}
	b.WriteString(": " + d.Reason)
	if d.Nondeterministic {
		b.WriteString("; running the step again from the same state does something else, so the code is " +
			"nondeterministic: look for map iteration order, the clock, randomness or goroutines in the handler")
	}
	for i, c := range d.Changes {
		if i == maxShownChanges {
			fmt.Fprintf(&b, "\n\t… and %d more differences", len(d.Changes)-i)
			break
		}
		switch c.Kind {
		case "added":
			fmt.Fprintf(&b, "\n\t%s: now %s (not in the stored state)", c.Path, c.New)
		case "removed":
			fmt.Fprintf(&b, "\n\t%s: stored %s (gone now)", c.Path, c.Old)
		default:
			fmt.Fprintf(&b, "\n\t%s: stored %s, now %s", c.Path, c.Old, c.New)
		}
	}
	return b.String()
}

// AsDivergence returns err as a *Divergence, if it is one.
func AsDivergence(err error) (*Divergence, bool) {
	var d *Divergence
	ok := errors.As(err, &d)
	return d, ok
}

// ShortSite renders a call site as its directory and file name and line (aodv/route.go:88): enough
// to find it, and the same on every checkout.
func ShortSite(site string) string { return engine.ShortSite(site) }

// sameSite reports whether two sites are the same file and line, wherever the checkout is. An
// exported trace records its sites relative to its module (ExportTest), so a relative site is
// also the same as an absolute one that ends in it.
func sameSite(a, b string) bool {
	return ShortSite(a) == ShortSite(b) || endsIn(a, b) || endsIn(b, a)
}

// endsIn reports whether site is absolute and ends in the relative site rel.
func endsIn(site, rel string) bool {
	return rel != "" && !strings.HasPrefix(rel, "/") && strings.HasSuffix(site, "/"+rel)
}

// storedLeaves folds the trace's changes up to step n into its initial state: the state the trace
// stored there, by path. It returns nil when the trace has no stored state.
func storedLeaves(t *engine.Trace, n int) []canon.Leaf {
	if len(t.Init) == 0 {
		return nil
	}
	leaves := slices.Clone(t.Init)
	at := make(map[string]int, len(leaves))
	for i, l := range leaves {
		at[l.Path] = i
	}
	removed := false
	for _, st := range t.Steps[:n] {
		for _, c := range st.Changes {
			i, ok := at[c.Path]
			switch {
			case c.Kind == "removed" && ok:
				leaves[i].Path = "" // dropped below
				delete(at, c.Path)
				removed = true
			case ok:
				leaves[i].Value = c.New
			case c.Kind != "removed":
				at[c.Path] = len(leaves)
				leaves = append(leaves, canon.Leaf{Path: c.Path, Value: c.New})
			}
		}
		if removed {
			// Compact now, so indexes stay valid for the next step.
			leaves = slices.DeleteFunc(leaves, func(l canon.Leaf) bool { return l.Path == "" })
			clear(at)
			for i, l := range leaves {
				at[l.Path] = i
			}
			removed = false
		}
	}
	return leaves
}

// run is one re-execution of a step, kept to compare with another.
type run struct {
	state  engine.State
	points []engine.ChoicePoint
	fail   string
	err    string
}

func (r run) equal(o run) bool {
	return slices.Equal(r.state, o.state) && slices.Equal(r.points, o.points) && r.fail == o.fail && r.err == o.err
}

// runStep applies stored step n from state prev and keeps what it did.
func (s *Session) runStep(prev engine.State, n int) run {
	next, out, err := s.mc.Apply(prev, n, &s.t.Steps[n-1], false)
	r := run{state: slices.Clone(next), points: slices.Clone(out.Points)}
	if out.Failure != nil {
		r.fail = out.Failure.Kind + " " + out.Failure.Site + " " + out.Failure.Message
	}
	if err != nil {
		r.err = err.Error()
	}
	return r
}

// nondeterminismRuns is how often a diverging step is re-run to see whether the code is
// nondeterministic. Go randomises map iteration per loop, so a handler that depends on map order
// shows it within a few runs.
const nondeterminismRuns = 8

// nondeterministic re-runs step n from prev and reports whether the runs disagree.
func (s *Session) nondeterministic(prev engine.State, n int) bool {
	first := s.runStep(prev, n)
	for range nondeterminismRuns - 1 {
		if !s.runStep(prev, n).equal(first) {
			return true
		}
	}
	return false
}

// diverged builds the Divergence of step n from prev, given what Apply returned, and checks for
// nondeterminism.
func (s *Session) diverged(prev engine.State, n int, next engine.State, out engine.Outcome, err error) *Divergence {
	st := &s.t.Steps[n-1]
	d := &Divergence{Step: n, Proc: st.Proc, Event: st.Event}
	var ed *engine.Divergence
	switch {
	case errors.As(err, &ed) && strings.HasPrefix(ed.Reason, "the model has no event"):
		d.Kind, d.Reason = "event", ed.Reason
		return d // nothing to re-run
	case errors.As(err, &ed) && strings.Contains(ed.Reason, "is not enabled"):
		d.Kind, d.Reason = "enabled", "the event is not enabled in this state now"
	case ed != nil:
		d.Kind = "choice"
		d.Site, d.Reason = s.locateChoice(prev, n)
	case err != nil:
		d.Kind, d.Reason = "error", err.Error()
		return d
	case out.Failure != nil && st.Hash == 0:
		d.Kind, d.Site = "failure", out.Failure.Site
		d.Reason = "the handler fails differently now: " + describeFailure(out.Failure) + " (the trace ends in " + describeViolation(s.t.Violation) + ")"
	case out.Failure != nil:
		d.Kind, d.Site = "failure", out.Failure.Site
		d.Reason = "the handler fails now: " + describeFailure(out.Failure)
	case st.Hash == 0 && s.t.Violation != nil: // without one (a hang's step run again), a state differs
		d.Kind, d.Site = "failure", s.t.Violation.Site
		d.Reason = "the step no longer fails (the trace ends in " + describeViolation(s.t.Violation) + ")"
	default:
		d.Kind, d.Reason = "state", "the code reaches a different state"
		if site, moved := s.movedChoice(out.Points, st); moved != "" {
			d.Site = site
			d.Reason += " (its Choose calls moved: " + moved + ")"
		}
		if stored := storedLeaves(s.t, n); stored != nil {
			if now, err := s.mc.Leaves(next); err == nil {
				d.Changes = canon.Diff(stored, now)
			}
			if len(d.Changes) == 0 {
				d.Reason += ", though every value is the same by path: what differs is what only the hash covers " +
					"(types, the canonical format) or the stored hash itself"
			}
		} else {
			d.Reason += "; the trace stores no states to show how"
		}
	}
	d.Nondeterministic = s.nondeterministic(prev, n)
	return d
}

// locateChoice re-runs step n from prev with the stored Choose values, answering calls that no
// longer fit with 0, to find the first call that differs and say where it is.
func (s *Session) locateChoice(prev engine.State, n int) (site, reason string) {
	st := &s.t.Steps[n-1]
	ei, _ := s.mc.Event(st.Proc, st.Event)
	if err := s.mc.Load(prev); err != nil {
		return "", "the Choose calls differ now (" + err.Error() + ")"
	}
	bad, badN := -1, 0
	out := s.mc.RunChoosing(ei, false, func(i, n int) int {
		if i < len(st.Choices) && st.Choices[i].Value < n {
			return st.Choices[i].Value
		}
		if bad < 0 {
			bad, badN = i, n
		}
		return 0
	})
	switch {
	case bad >= 0 && bad < len(st.Choices):
		site = engine.Site(out.Points[bad].PC)
		return site, fmt.Sprintf("the code now makes a different choice at %s: Choose(%d) there, but the trace chose %d (of %d)",
			ShortSite(site), badN, st.Choices[bad].Value, st.Choices[bad].N)
	case bad >= 0:
		site = engine.Site(out.Points[bad].PC)
		return site, fmt.Sprintf("the code now makes a different choice at %s: a Choose call the trace does not have (it recorded %d)",
			ShortSite(site), len(st.Choices))
	case len(out.Points) < len(st.Choices):
		site = st.Choices[len(out.Points)].Site
		return site, fmt.Sprintf("the code now makes a different choice: %d Choose calls, the trace recorded %d (the next at %s)",
			len(out.Points), len(st.Choices), ShortSite(site))
	}
	return "", "the Choose calls differ now"
}

// movedChoice finds the first Choose call of a run made at another line than the trace records:
// its site now, and how it moved.
func (s *Session) movedChoice(points []engine.ChoicePoint, st *engine.Step) (site, moved string) {
	for i, p := range points {
		if site = engine.Site(p.PC); i < len(st.Choices) && st.Choices[i].Site != "" && !sameSite(site, st.Choices[i].Site) {
			return site, fmt.Sprintf("choice %d was at %s, it is at %s now", i+1, ShortSite(st.Choices[i].Site), ShortSite(site))
		}
	}
	return "", ""
}

func describeFailure(f *engine.Failure) string {
	s := f.Kind
	if f.Site != "" {
		s += " at " + ShortSite(f.Site)
	}
	return s + ": " + f.Message
}

// describeViolation renders a violation in one line: invariant NoLoop: a -> b -> a.
func describeViolation(v *engine.Violation) string {
	if v == nil {
		return "no violation"
	}
	s := v.Kind
	if v.Name != "" {
		s += " " + v.Name
	}
	if v.Site != "" && v.Name == "" {
		s += " at " + ShortSite(v.Site)
	}
	if v.Message != "" {
		s += ": " + v.Message
	}
	return s
}
