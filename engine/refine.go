package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/internal/transition"
)

// Refinement checking (cmc.Refines): after every transition, what the implementation showed must
// be a move its specification allows from the state the specification is in, or nothing at all
// (a stutter). The specification's state is a component of the checked state, so this is a check
// of each transition, as the seed reduces refinement to a transition invariant; it runs inside
// Machine.Run, so the search, the random walk, replay and minimisation all judge a step alike.

// The notes the check records on a step of a recorded trace (To names the specification, From
// the process): the spec step it matched; the step it refused; and each move the specification
// allowed where it refused one. The debugger's Specification scope and the sequence chart read
// them.
const (
	NoteSpec        = "spec"
	NoteSpecRefused = "spec-refused"
	NoteSpecAllows  = "spec-allows"
)

// IsSpecNote reports whether n is one of the refinement check's notes.
func IsSpecNote(n Note) bool {
	return (n.Kind == NoteSpec || n.Kind == NoteSpecRefused || n.Kind == NoteSpecAllows) && n.To != ""
}

// refine advances every specification the model refines over the transition ev just made, on the
// live state. It returns the first refusal as a Failure of kind "refinement", or nil.
func (mc *Machine) refine(ev *cmc.Event) *Failure {
	for _, r := range mc.Def.Refinements {
		if msg := advance(r, ev); msg != "" {
			return &Failure{Kind: "refinement", Message: msg, Site: siteOf(ev)}
		}
	}
	return nil
}

// advance checks one specification over the transition ev made and moves it; it returns why the
// step is refused, or "".
func advance(r *cmc.Refinement, ev *cmc.Event) string {
	spec, held := r.Get()
	shown := r.Step(ev)
	impl, settled := r.State()
	to, hold, why := Judge(r, spec, held, shown, impl, settled)
	c := transition.Current("Refines")
	if !c.Noting() { // a search: no notes, so nothing more to build
		if why == "" {
			r.Set(to, hold)
		}
		return why
	}
	step := cmc.Observed{Event: held.Event + shown.Event, Actions: append(slices.Clone(held.Actions), shown.Actions...)}
	if why != "" {
		// What the debugger's Specification scope shows of a refused step: the step, and what
		// the specification allowed from where it was.
		c.Note(transition.Note{Kind: NoteSpecRefused, From: ev.Proc, To: r.Spec,
			Msg: "in " + r.Name(spec) + ": " + describeStep(step) + " reaching " + r.Name(impl)})
		for _, a := range allowedMoves(r, spec, step.Event) {
			c.Note(transition.Note{Kind: NoteSpecAllows, From: ev.Proc, To: r.Spec, Msg: a})
		}
		return why
	}
	r.Set(to, hold)
	if settled && (step.Event != "" || len(step.Actions) > 0) {
		// A mark on the process's lifeline in the sequence chart: the spec step it matched.
		c.Note(transition.Note{Kind: NoteSpec, From: ev.Proc, To: r.Spec, Msg: describeMove(step, r.Name(r.Visible(to)))})
	}
	return ""
}

// allowedMoves lists, as "event: actions → state", what the specification allows from spec: on
// every event it lists, else on event.
func allowedMoves(r *cmc.Refinement, spec any, event string) []string {
	events := r.Events
	if events == nil {
		events = []string{event}
	}
	var out []string
	for _, e := range events {
		for _, mv := range r.Next(spec, e) {
			out = append(out, describeMove(cmc.Observed{Event: e, Actions: mv.Actions}, r.Name(r.Visible(mv.To))))
		}
	}
	return out
}

// Judge is one step of refinement checking, the one judgement the engine and log conformance
// (package conform) make: the specification in state spec, having held what a run of
// unsettled transitions showed, sees a transition show shown and leave the implementation in
// impl (settled: at a specification state). It returns the specification's next state and what
// it now holds, or why the step is refused.
func Judge(r *cmc.Refinement, spec any, held, shown cmc.Observed, impl any, settled bool) (to any, hold cmc.Observed, refusal string) {
	if held.Event != "" && shown.Event != "" {
		return nil, held, fmt.Sprintf("spec %s in %s: events %s and %s in one step (the implementation was between two spec states when %s came)",
			r.Spec, r.Name(spec), held.Event, shown.Event, shown.Event)
	}
	step := cmc.Observed{Event: held.Event + shown.Event, Actions: append(slices.Clone(held.Actions), shown.Actions...)}
	if !settled {
		return spec, step, "" // between two spec states: hold what was shown (NEXT's invisible prefix)
	}
	if step.Event == "" && len(step.Actions) == 0 {
		if impl == r.Visible(spec) {
			return spec, cmc.Observed{}, "" // a stutter
		}
		return nil, held, fmt.Sprintf("spec %s in %s: the implementation moved to %s showing no event or action; a state change needs a spec event",
			r.Spec, r.Name(spec), r.Name(impl))
	}
	moves := r.Next(spec, step.Event)
	for _, mv := range moves {
		if !sameActions(mv.Actions, step.Actions) || r.Visible(mv.To) != impl {
			continue
		}
		to := mv.To
		if r.Witness != nil {
			to = r.Witness(to)
			if r.Visible(to) != impl {
				return nil, held, fmt.Sprintf("spec %s: the witness made %s of %s, which the implementation (in %s) does not show; a witness may set only private variables",
					r.Spec, r.Name(to), r.Name(mv.To), r.Name(impl))
			}
		}
		return to, cmc.Observed{}, ""
	}
	return nil, held, fmt.Sprintf("spec %s in %s: observed %s reaching %s; the spec allows %s",
		r.Spec, r.Name(spec), describeStep(step), r.Name(impl), allowed(r, moves, step.Event))
}

// Refusal says why the specification refuses the state the implementation is in when its state
// is settled (the initial state, before any step), or "".
func refusal(r *cmc.Refinement) string {
	spec, held := r.Get()
	if held.Event != "" || len(held.Actions) > 0 {
		return ""
	}
	impl, settled := r.State()
	if !settled || impl == r.Visible(spec) {
		return ""
	}
	return fmt.Sprintf("spec %s is in %s but the implementation is in %s", r.Spec, r.Name(spec), r.Name(impl))
}

// refinementVerdict checks, on the live state, that each implementation is where its
// specification is: the one check a transition cannot make, on the initial state.
func (mc *Machine) refinementVerdict() *Violation {
	for _, r := range mc.Def.Refinements {
		var msg string
		fail, err := mc.Guard("refinement", r.Spec, func() error { msg = refusal(r); return nil })
		switch {
		case fail != nil:
			return NewViolation(fail.Kind, r.Spec, fail.Message, fail.Site)
		case err != nil:
			return NewViolation("refinement", r.Spec, err.Error(), "")
		case msg != "":
			return NewViolation("refinement", r.Spec, msg, "")
		}
	}
	return nil
}

// sameActions compares two lists of actions as multisets: a move's actions happen in any order.
func sameActions(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if slices.Equal(a, b) { // the usual case: the implementation acts in the table's order
		return true
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func describeStep(o cmc.Observed) string {
	ev := o.Event
	if ev == "" {
		ev = "no event"
	}
	if len(o.Actions) == 0 {
		return ev + " with no action"
	}
	return ev + " with " + strings.Join(o.Actions, ",")
}

func describeMove(o cmc.Observed, to string) string {
	acts := strings.Join(o.Actions, ",")
	if acts == "" {
		acts = "-"
	}
	return o.Event + ": " + acts + " → " + to
}

// allowed lists what the specification allows on event: its moves as actions/state, the RFC
// table's notation.
func allowed(r *cmc.Refinement, moves []cmc.SpecMove, event string) string {
	if len(moves) == 0 {
		if event == "" {
			return "no action without an event"
		}
		return "no move on " + event + " here"
	}
	var parts []string
	for _, mv := range moves {
		acts := strings.Join(mv.Actions, ",")
		if acts != "" {
			acts += "/"
		}
		if p := acts + r.Name(r.Visible(mv.To)); !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " or ")
}

func siteOf(ev *cmc.Event) string {
	if ev.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", ev.File, ev.Line)
}
