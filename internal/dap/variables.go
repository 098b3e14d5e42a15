package dap

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/cmc-go/cmc/engine"
	"github.com/google/go-dap"
)

// Variables come from the stored state (no re-execution): a scope or a composite variable is a
// handle to a node of the state tree of one step, or to the step's Choose values, changes or
// notes. Handles are valid until the next stop, as DAP allows.

type handleKind int

const (
	hNode    handleKind = iota // children of a state tree node
	hChoices                   // the Choose calls of a step (up to Choice when inside it)
	hChanges                   // what a step changed
	hNotes                     // the messages a step sent, delivered, lost
	hSpec                      // the specifications a model refines, and what the step showed them (spec.go)
	hConns                     // the conversations with real peers so far (connections.go)
)

type handle struct {
	kind handleKind
	pos  engine.Cursor // the frame
	node *node
}

type handles struct{ list []handle }

func (h *handles) add(x handle) int {
	h.list = append(h.list, x)
	return len(h.list)
}

func (h *handles) get(ref int) (handle, bool) {
	if ref < 1 || ref > len(h.list) {
		return handle{}, false
	}
	return h.list[ref-1], true
}

func (h *handles) reset() { h.list = h.list[:0] }

// summaryWidth bounds a folded composite's preview.
const summaryWidth = 80

// variable describes a state node as a DAP variable.
func (s *Session) variable(n *node, pos engine.Cursor) dap.Variable {
	v := dap.Variable{Name: n.name, EvaluateName: exprPath(n.path)}
	if n.leaf {
		v.Value = n.value
		return v
	}
	v.Value = n.summary(summaryWidth)
	v.VariablesReference = s.handles.add(handle{kind: hNode, pos: pos, node: n})
	switch {
	case n.indexed:
		v.IndexedVariables = len(n.kids)
	case len(n.kids) > pageSize:
		v.NamedVariables = len(n.kids)
	}
	return v
}

// pageSize is how many children a client gets when it does not ask for a range.
const pageSize = 1000

func (s *Session) onVariables(req *dap.VariablesRequest) {
	a := req.Arguments
	h, ok := s.handles.get(a.VariablesReference)
	if !ok {
		s.sendError(&req.Request, errBadArgs, fmt.Sprintf("variables: reference %d is not valid now (references last until the next stop)", a.VariablesReference))
		return
	}
	var vars []dap.Variable
	switch h.kind {
	case hNode:
		if a.Filter == "named" && h.node.indexed {
			break
		}
		for _, c := range page(h.node.kids, a.Start, a.Count) {
			vars = append(vars, s.variable(c, h.pos))
		}
	case hChoices:
		vars = page(s.choiceVars(h.pos), a.Start, a.Count)
	case hChanges:
		vars = page(s.changeVars(h.pos), a.Start, a.Count)
	case hNotes:
		vars = page(s.noteVars(h.pos), a.Start, a.Count)
	case hSpec:
		vars = page(s.specVars(h), a.Start, a.Count)
	case hConns:
		vars = page(s.connectionVars(h.pos), a.Start, a.Count)
	}
	r := &dap.VariablesResponse{Response: response(&req.Request)}
	r.Body.Variables = vars
	if r.Body.Variables == nil {
		r.Body.Variables = []dap.Variable{}
	}
	s.send(r)
}

// page returns items[start:start+count]; count 0 is a default page.
func page[T any](items []T, start, count int) []T {
	if count <= 0 {
		count = pageSize
	}
	start = min(max(start, 0), len(items))
	return items[start:min(start+count, len(items))]
}

// choiceVars lists a step's Choose calls: those made so far when the engine.Cursor is inside it.
func (s *Session) choiceVars(p engine.Cursor) []dap.Variable {
	if p.Step == 0 {
		return nil
	}
	cs := s.tr.t.Made(p)
	out := make([]dap.Variable, len(cs))
	for i, c := range cs {
		name := fmt.Sprintf("#%d", i+1)
		if at, ok := engine.ParseSite(c.Site); ok {
			name += fmt.Sprintf(" %s:%d", filepath.Base(at.File), at.Line)
		}
		value := strconv.Itoa(c.Value)
		if c.Label != "" {
			value += ": " + c.Label
		}
		out[i] = dap.Variable{
			Name:  name,
			Value: value,
			Type:  fmt.Sprintf("Choose(%d) at %s", c.N, s.siteText(c.Site)),
		}
	}
	return out
}

// changeVars lists what a step changed, as path: old → new. Inside a step nothing changed yet.
func (s *Session) changeVars(p engine.Cursor) []dap.Variable {
	if p.Step == 0 || p.Inside() {
		return nil
	}
	cs, err := s.shownChanges(p.Step)
	if err != nil {
		return []dap.Variable{{Name: "error", Value: err.Error()}}
	}
	out := make([]dap.Variable, len(cs))
	for i, c := range cs {
		v := dap.Variable{Name: c.Path, EvaluateName: exprPath(c.Path), Type: c.Kind}
		switch c.Kind {
		case "added":
			v.Value = "+ " + c.New
		case "removed":
			v.Value = "− " + c.Old
		default:
			v.Value = c.Old + " → " + c.New
		}
		out[i] = v
	}
	return out
}

// noteVars lists a step's notes: messages sent, delivered, lost, duplicated.
func (s *Session) noteVars(p engine.Cursor) []dap.Variable {
	if p.Step == 0 || p.Inside() {
		return nil
	}
	ns := s.tr.step(p.Step).Notes
	out := make([]dap.Variable, len(ns))
	for i, n := range ns {
		v := dap.Variable{Name: fmt.Sprintf("#%d %s", i, n.Kind), Value: n.Msg}
		if n.From != "" || n.To != "" {
			v.Value = n.From + " → " + n.To + ": " + n.Msg
		}
		out[i] = v
	}
	return out
}
