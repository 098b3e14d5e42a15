package dap

import (
	"regexp"
	"strings"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
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
		if hits, reason, text := s.hitsAt(p); len(hits) > 0 || text != "" {
			s.stopAt(p, reason, text, hits)
			return
		}
	}
	if forward {
		s.stopAt(s.tr.t.End(), "step", "end of trace", nil)
	} else {
		s.stopAt(engine.After(0), "entry", "start of trace", nil)
	}
}

// hitsAt returns the breakpoints that hit at p, and the stop reason. A condition that fails to
// evaluate stops too, with the error as the text.
func (s *Session) hitsAt(p engine.Cursor) (hits []int, reason, text string) {
	if p.Step == 0 {
		return nil, "", ""
	}
	st := s.tr.step(p.Step)
	try := func(b *bp, why string) bool {
		if b.cond != "" {
			e, err := s.envAt(p.Shown())
			if err != nil {
				text = "condition: " + err.Error()
				return true
			}
			ok, err := s.progs.truth(b.cond, e)
			if err != nil {
				text = "condition " + b.cond + ": " + err.Error()
				return true
			}
			if !ok {
				return false
			}
		}
		b.hits++
		if b.hitCond != "" {
			if ok, _ := hitMatches(b.hitCond, b.hits); !ok {
				return false
			}
		}
		if b.logMsg != "" {
			s.output("console", s.interpolate(b.logMsg, p)+"\n")
			return false
		}
		hits = append(hits, b.id)
		if reason == "" {
			reason = why
		}
		return false
	}
	if c := s.tr.t.Call(p); c != nil {
		for _, b := range s.bps.bySite[c.Site] {
			if try(&b.bp, "breakpoint") {
				return nil, "breakpoint", text
			}
		}
		return hits, reason, text
	}
	for _, b := range s.bps.data {
		if b.verified && changes(st.Changes, b.path) {
			if try(&b.bp, "data breakpoint") {
				return nil, "data breakpoint", text
			}
		}
	}
	for _, b := range s.bps.funcs {
		if b.verified && b.matches(st.Proc, st.Event) {
			if try(&b.bp, "function breakpoint") {
				return nil, "function breakpoint", text
			}
		}
	}
	for _, b := range s.bps.bySite[st.Site] {
		if try(&b.bp, "breakpoint") {
			return nil, "breakpoint", text
		}
	}
	return hits, reason, text
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
