package dap

import (
	"fmt"
	"regexp"
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
		if hits, reason := s.hitsAt(p); len(hits) > 0 {
			s.stopAt(p, reason, "", hits)
			return
		}
	}
	if forward {
		s.stopAt(s.tr.t.End(), "step", "end of trace", nil)
	} else {
		s.stopAt(engine.After(0), "entry", "start of trace", nil)
	}
}

// hitsAt returns the breakpoints that hit at p, and the stop reason. A condition that is false
// or nil does not hit; one that fails to evaluate does not either, and says so once
// (conditionFailed).
func (s *Session) hitsAt(p engine.Cursor) (hits []int, reason string) {
	if p.Step == 0 {
		return nil, ""
	}
	st := s.tr.step(p.Step)
	try := func(b *bp, form func() dap.Breakpoint, label, why string) {
		if b.cond != "" {
			ok, err := s.conditionAt(b.cond, p)
			if err != nil {
				s.conditionFailed(b, form, label, p, err)
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
			s.output("console", s.interpolate(b.logMsg, p)+"\n")
			return
		}
		hits = append(hits, b.id)
		if reason == "" {
			reason = why
		}
	}
	if c := s.tr.t.Call(p); c != nil {
		for _, b := range s.bps.bySite[c.Site] {
			try(&b.bp, b.dap, b.label(), "breakpoint")
		}
		return hits, reason
	}
	for _, b := range s.bps.data {
		if b.verified && changes(st.Changes, b.path) {
			try(&b.bp, b.dap, "data breakpoint on "+b.path, "data breakpoint")
		}
	}
	for _, b := range s.bps.funcs {
		if b.verified && b.matches(st.Proc, st.Event) {
			try(&b.bp, b.dap, "function breakpoint "+b.name, "function breakpoint")
		}
	}
	for _, b := range s.bps.bySite[st.Site] {
		try(&b.bp, b.dap, b.label(), "breakpoint")
	}
	return hits, reason
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
