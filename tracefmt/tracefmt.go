// Package tracefmt prints a trace for people: one block per step with its process, event,
// Choose values, notes and the state changes, in aligned columns with file basenames. The check
// command prints violations with it and "cmcdap trace show" prints stored traces with it, so a
// trace reads the same wherever it appears.
package tracefmt

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// maxPathWidth caps the path column: a longer path pushes its own value right, not the others'.
const maxPathWidth = 40

// Write prints t's initial state size and then its steps:
//
//	0  initial state: 57 values
//	1  B  timeout  timers.go:180
//	     choose 1/2 @ router.go:112
//	     choose 0/3: deliver RREP C→A @ air.go:146
//	     send A->B RREQ{orig=A dest=D seq=2}
//	     ~ B.routes[D].seq   3 -> 4
//	     + B.routes[D].hops  2
//	     - net.msgs[0].kind  "RREQ"
//	     - net.msgs[1]       {kind: "RREP", to: C}
//
// Changes are marked ~ changed (old -> new), + added (new value), - removed (old value); an
// element added or removed whole is one line, its fields in braces (canon.Wholes). The
// violation is not printed: callers say it in their own words first.
func Write(w io.Writer, t *engine.Trace) error {
	p := &printer{w: w}
	num := len(strconv.Itoa(len(t.Steps)))
	var procW, eventW int
	for _, st := range t.Steps {
		procW = max(procW, len(st.Proc))
		eventW = max(eventW, len(st.Event))
	}
	indent := strings.Repeat(" ", num+4)
	p.printf("%*d  initial state: %d values\n", num, 0, len(t.Init))
	paths := newLeafPaths(t.Init)
	for i, st := range t.Steps {
		head := fmt.Sprintf("%*d  %-*s  %-*s", num, i+1, procW, st.Proc, eventW, st.Event)
		if st.Site != "" {
			head += "  " + Base(st.Site)
		}
		p.printf("%s\n", strings.TrimRight(head, " "))
		for _, c := range st.Choices {
			p.printf("%schoose %d/%d", indent, c.Value, c.N)
			if c.Label != "" {
				p.printf(": %s", c.Label)
			}
			if c.Site != "" {
				p.printf(" @ %s", Base(c.Site))
			}
			p.printf("\n")
		}
		for _, n := range st.Notes {
			p.printf("%s%s\n", indent, Note(n))
		}
		changes := paths.step(st.Changes)
		pathW := 0
		for _, c := range changes {
			if len(c.Path) <= maxPathWidth {
				pathW = max(pathW, len(c.Path))
			}
		}
		for _, c := range changes {
			p.printf("%s%s\n", indent, Change(c, pathW))
		}
	}
	return p.err
}

// Note says what a note says: "send A->B RREQ{...}".
func Note(n engine.Note) string {
	s := n.Kind
	switch {
	case n.From != "" && n.To != "":
		s += " " + n.From + "->" + n.To
	case n.From != "":
		s += " " + n.From
	case n.To != "":
		s += " ->" + n.To
	}
	if n.Msg != "" {
		s += " " + n.Msg
	}
	return s
}

// Change prints one change, its path padded to pathW: "~ path  old -> new", "+ path  new",
// "- path  old".
func Change(c canon.Change, pathW int) string {
	switch c.Kind {
	case "changed":
		return fmt.Sprintf("~ %-*s  %s -> %s", pathW, c.Path, c.Old, c.New)
	case "added":
		return fmt.Sprintf("+ %-*s  %s", pathW, c.Path, c.New)
	case "removed":
		return fmt.Sprintf("- %-*s  %s", pathW, c.Path, c.Old)
	}
	return fmt.Sprintf("? %-*s  %s -> %s (%s)", pathW, c.Path, c.Old, c.New, c.Kind)
}

// Base shortens a file:line site to its file's base name and line.
func Base(site string) string {
	if i := strings.LastIndexAny(site, `/\`); i >= 0 {
		return site[i+1:]
	}
	return site
}

// printer keeps the first write error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// leafPaths are the paths of the state's leaves, followed step by step: what canon.Wholes needs
// to tell an element added or removed whole from one that lost or gained a field.
type leafPaths map[string]bool

func newLeafPaths(init []canon.Leaf) leafPaths {
	ps := make(leafPaths, len(init))
	for _, l := range init {
		ps[l.Path] = true
	}
	return ps
}

// step applies a step's changes and returns them as they read (canon.Wholes).
func (ps leafPaths) step(cs []canon.Change) []canon.Change {
	whole := false
	for _, c := range cs {
		switch c.Kind {
		case "changed":
			ps[c.Path] = true // there after the step, whatever the initial state said
		case "added":
			ps[c.Path], whole = true, true
		case "removed":
			delete(ps, c.Path)
			whole = true
		}
	}
	if !whole {
		return cs
	}
	after := make([]canon.Leaf, 0, len(ps))
	for p := range ps { // Wholes only asks which elements have leaves: the order does not matter
		after = append(after, canon.Leaf{Path: p})
	}
	return canon.Wholes(cs, after)
}
