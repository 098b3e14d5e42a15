package dap

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/google/go-dap"
)

// continue and reverseContinue walk the trace engine.Cursor by engine.Cursor, forward or back, and stop
// at the first engine.Cursor where a breakpoint hits. A walk with no breakpoint to check costs
// nothing but the walk; conditions read the state only where their breakpoint matches.

// run walks from the current engine.Cursor and stops at the first hit, or at the end it reaches.
func (s *Session) run(forward bool) {
	p := s.pos
	for {
		var ok bool
		if forward {
			p, ok = s.tr.t.StepIn(p)
		} else {
			p, ok = s.tr.t.StepInBack(p)
		}
		if !ok {
			break
		}
		if st := s.hitsAt(p); st != nil {
			if st.enter {
				if dlv, err := s.delve(); err == nil {
					s.enter(dlv, p.Step, false, forward) // stop on the line, inside the step
					return
				}
			}
			s.stopAt(p, *st)
			return
		}
	}
	if forward {
		s.stopAt(s.tr.t.End(), stop{reason: "step", text: "end of trace"})
	} else {
		s.stopAt(engine.After(0), stop{reason: "entry", text: "start of trace"})
	}
}

// hitsAt returns the stop at p when breakpoints hit there, else nil: the first kind that hits
// gives the reason, and the label names each (the data breakpoint's variable, the function
// breakpoint's name). A condition that is false or nil does not hit; one that fails to evaluate
// does not either, and says so once (conditionFailed). Continue calls it at every place of the
// trace, so a place where no breakpoint applies costs a few comparisons and nothing else.
func (s *Session) hitsAt(p engine.Cursor) *stop {
	if p.Step == 0 {
		return nil
	}
	h := hitting{s: s, p: p}
	if c := s.tr.t.Call(p); c != nil {
		for _, b := range s.bps.bySite[c.Site] {
			h.try(&b.bp, b.dap, b.label(), "breakpoint", "breakpoint")
		}
		return h.stop()
	}
	st := s.tr.step(p.Step)
	for _, b := range s.bps.data {
		if b.verified && changes(st.Changes, b.path) {
			h.try(&b.bp, b.dap, "data breakpoint on "+b.path, "data breakpoint", "data breakpoint: "+b.path+" changed")
		}
	}
	for _, b := range s.bps.funcs {
		if b.verified && b.matches(st.Proc, st.Event) {
			h.try(&b.bp, b.dap, "function breakpoint "+b.name, "function breakpoint", "function breakpoint: "+b.name)
		}
	}
	if len(s.bps.bySite) > 0 {
		for _, b := range s.bps.bySite[st.Site] {
			h.try(&b.bp, b.dap, b.label(), "breakpoint", "breakpoint")
		}
	}
	for _, b := range s.bps.code {
		// Its condition is Go, for Delve inside the step (lines.go).
		if slices.Contains(b.steps, p.Step) {
			h.hits = append(h.hits, b.id)
			h.kind, h.enter = cmp.Or(h.kind, "breakpoint"), true
			h.whys = append(h.whys, b.label())
		}
	}
	return h.stop()
}

// hitting collects the breakpoints that hit at one place of the trace.
type hitting struct {
	s     *Session
	p     engine.Cursor
	hits  []int
	kind  string   // the reason of the first that hit
	whys  []string // what each kind that hit says, once
	enter bool     // a breakpoint on a line of the code hit: stop there, inside the step
}

// try counts b as met at the place: it hits unless its condition is false or fails, its hit
// condition does not match, or it is a logpoint (which logs instead).
func (h *hitting) try(b *bp, form func() dap.Breakpoint, label, reason, why string) {
	if b.cond != "" {
		ok, err := h.s.conditionAt(b.cond, h.p)
		if err != nil {
			h.s.conditionFailed(b, form, label, h.p, err)
			return
		}
		if !ok {
			return
		}
	}
	b.hits++
	if b.hitCond != "" {
		if ok, _ := hitMatches(b.hitCond, b.hits); !ok {
			return
		}
	}
	if b.logMsg != "" {
		h.s.output("console", h.s.interpolate(b.logMsg, h.p)+"\n")
		return
	}
	h.hits = append(h.hits, b.id)
	if h.kind == "" {
		h.kind = reason
	}
	if !slices.Contains(h.whys, why) {
		h.whys = append(h.whys, why)
	}
}

// stop is what the breakpoints that hit make of the place, nil if none did.
func (h *hitting) stop() *stop {
	if len(h.hits) == 0 {
		return nil
	}
	return &stop{reason: h.kind, hits: h.hits, why: "Paused on " + strings.Join(h.whys, "; "), enter: h.enter}
}

// conditionAt evaluates a breakpoint's condition over the state shown at p.
func (s *Session) conditionAt(cond string, p engine.Cursor) (bool, error) {
	e, err := s.envAt(p.Shown())
	if err != nil {
		return false, err
	}
	return s.progs.truth(cond, e)
}

// conditionFailed tells the user, once per breakpoint, that its condition could not be
// evaluated: in the Debug Console and on the breakpoint (its message). The breakpoint stays
// verified: it still stops where its condition is true.
func (s *Session) conditionFailed(b *bp, form func() dap.Breakpoint, label string, p engine.Cursor, err error) {
	if b.condFailed {
		return
	}
	b.condFailed = true
	b.message = fmt.Sprintf("condition %s failed at step %d: %s; it does not stop where its condition fails",
		b.cond, p.Step, firstLine(err.Error()))
	s.output("stderr", label+": "+b.message+"\n")
	s.send(&dap.BreakpointEvent{Event: event("breakpoint"), Body: dap.BreakpointEventBody{Reason: "changed", Breakpoint: form()}})
}

// changes reports whether a step's changes touch path or anything below it.
func changes(cs []canon.Change, path string) bool {
	for _, c := range cs {
		if under(c.Path, path) {
			return true
		}
	}
	return false
}

var braces = regexp.MustCompile(`\{[^{}]+\}`)

// interpolate fills a log message's {expression} parts from the state at p.
func (s *Session) interpolate(msg string, p engine.Cursor) string {
	e, err := s.envAt(p.Shown())
	if err != nil {
		return msg + " (" + err.Error() + ")"
	}
	return braces.ReplaceAllStringFunc(msg, func(m string) string {
		v, err := s.progs.eval(strings.TrimSpace(m[1:len(m)-1]), e)
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return show(v)
	})
}
