package views

import (
	"strings"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// A SeqChart is the message sequence chart of a whole trace: one lifeline per process (and per
// address the network named), one row per step, and an arrow per message from the step that sent
// it to the step that delivered, lost or dropped it. Positions are indexes (lifeline, step); the
// page turns them into pixels.
type SeqChart struct {
	Lifelines []string    `json:"lifelines"`
	Steps     []ChartStep `json:"steps"` // Steps[i] is step i+1
	Arrows    []Arrow     `json:"arrows"`
	Violation string      `json:"violation,omitempty"` // what went wrong at the last step
}

// A ChartStep is one step: the event the process handled, and the notes that are not arrows.
type ChartStep struct {
	Step     int    `json:"step"` // 1-based, as the debugger counts
	Lifeline int    `json:"lifeline"`
	Event    string `json:"event"`
	Marks    []Mark `json:"marks,omitempty"`
}

// A Mark is a note drawn on a lifeline at a step: an injected failure, a duplication, or a note
// of the model's own kind.
type Mark struct {
	Lifeline int    `json:"lifeline"`
	Kind     string `json:"kind"`
	Text     string `json:"text,omitempty"`
	// Label is what the chart writes beside the lifeline ("" : Kind): for a specification's
	// mark, the spec event the step matched ("RCA") or refused ("✗ RTA").
	Label string `json:"label,omitempty"`
}

// An ArrowKind says what became of a message.
type ArrowKind string

const (
	Delivered ArrowKind = "delivered"
	Lost      ArrowKind = "lost"    // taken out of the network and lost on the way (a lose note)
	Dropped   ArrowKind = "dropped" // never entered the network (a drop note: the network was full)
	InFlight  ArrowKind = "pending" // still in flight when the trace ends
)

// ArrowKinds are all the ArrowKinds: the page's TypeScript type is their union (internal/gen).
var ArrowKinds = []ArrowKind{Delivered, Lost, Dropped, InFlight}

// An Arrow is one message.
type Arrow struct {
	From int       `json:"from"` // lifelines
	To   int       `json:"to"`
	Send int       `json:"send"` // the step that sent it; 0: in flight before the trace began
	Recv int       `json:"recv"` // the step that delivered, lost or dropped it; 0: never
	Msg  string    `json:"msg"`
	Kind ArrowKind `json:"kind"`
	Dup  bool      `json:"dup,omitempty"` // a copy a duplicating delivery left in flight
}

// Chart shapes the sequence chart of t. Sends and deliveries are paired by sender, receiver and
// message text, first in first out among identical messages (which cannot be told apart anyway).
// A dup note leaves a copy of the message being delivered in flight, sent at the same step; a
// lose note ends a message as lost; a drop note is a message the network refused at the send,
// unless an identical message is in flight to the process taking the step, which it then loses.
func Chart(t *engine.Trace) *SeqChart {
	c := &SeqChart{Lifelines: []string{}, Steps: make([]ChartStep, len(t.Steps)), Arrows: []Arrow{}}
	lines := lifelines(t)
	index := map[string]int{}
	for i, l := range lines {
		index[l] = i
	}
	c.Lifelines = lines
	queues := map[string][]int{} // message key -> arrows in flight, oldest first
	for i, s := range t.Steps {
		n := i + 1
		proc := index[s.Proc]
		cs := ChartStep{Step: n, Lifeline: proc, Event: s.Event}
		for _, note := range s.Notes {
			from, to := s.Proc, s.Proc
			if note.From != "" {
				from = note.From
			}
			if note.To != "" {
				to = note.To
			}
			key := from + "\x00" + to + "\x00" + note.Msg
			q := queues[key]
			newArrow := func(send, recv int, kind ArrowKind) int {
				c.Arrows = append(c.Arrows, Arrow{From: index[from], To: index[to], Send: send, Recv: recv, Msg: note.Msg, Kind: kind})
				return len(c.Arrows) - 1
			}
			switch note.Kind {
			case "send":
				queues[key] = append(q, newArrow(n, 0, InFlight))
			case "deliver", "lose":
				kind := Delivered
				if note.Kind == "lose" {
					kind = Lost
				}
				if len(q) == 0 { // in flight in the initial state
					newArrow(0, n, kind)
					continue
				}
				a := &c.Arrows[q[0]]
				a.Recv, a.Kind = n, kind
				queues[key] = q[1:]
			case "drop":
				if len(q) > 0 && to == s.Proc {
					a := &c.Arrows[q[0]]
					a.Recv, a.Kind = n, Lost
					queues[key] = q[1:]
					continue
				}
				newArrow(n, n, Dropped)
			case "dup":
				cs.Marks = append(cs.Marks, Mark{Lifeline: index[to], Kind: note.Kind, Text: note.Msg})
				send := 0
				if len(q) > 0 {
					send = c.Arrows[q[0]].Send
				}
				cp := newArrow(send, 0, InFlight)
				c.Arrows[cp].Dup = true
				// The copy queues right behind the original, which this step's delivery takes.
				if len(q) == 0 {
					queues[key] = []int{cp}
				} else {
					queues[key] = append(append(append(make([]int, 0, len(q)+1), q[0]), cp), q[1:]...)
				}
			case engine.NoteSpecAllows: // for the debugger's Specification scope, not the chart
			default:
				line := proc
				if note.From != "" {
					line = index[from]
				}
				m := Mark{Lifeline: line, Kind: note.Kind, Text: note.Msg}
				if engine.IsSpecNote(note) { // the spec step the process's step matched, or refused
					m.Lifeline, m.Text, m.Label = index[note.From], note.To+" "+note.Msg, specLabel(note)
				}
				cs.Marks = append(cs.Marks, m)
			}
		}
		c.Steps[i] = cs
	}
	if t.Violation != nil {
		c.Violation = t.Violation.Kind + ": " + t.Violation.Message
	}
	return c
}

// lifelines orders the processes and addresses of a trace: those that are roots of the state in
// the state's order (the model's declaration order), then the others as they first appear. Only
// names that take a step or send or receive are lifelines: environment components are not.
func lifelines(t *engine.Trace) []string {
	used := map[string]bool{}
	var seen []string
	add := func(name string) {
		if name != "" && !used[name] {
			used[name] = true
			seen = append(seen, name)
		}
	}
	for _, s := range t.Steps {
		add(s.Proc)
		for _, n := range s.Notes {
			add(n.From)
			if !engine.IsSpecNote(n) { // a specification is no lifeline: its notes mark the process's
				add(n.To)
			}
		}
	}
	var out []string
	placed := map[string]bool{}
	for _, r := range roots(t.Init) {
		if used[r] && !placed[r] {
			placed[r] = true
			out = append(out, r)
		}
	}
	for _, n := range seen {
		if !placed[n] {
			out = append(out, n)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// roots returns the root names of a state's leaves, in order.
func roots(leaves []canon.Leaf) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range leaves {
		r := rootOf(l.Path)
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// rootOf returns the component a path starts at (canon.Path.Root).
func rootOf(path string) string { return canon.Path(path).Root() }

// specLabel is a spec note's event: its text up to the colon ("RCA: irc → Ack-Rcvd"), after
// "in STATE: " for a refused step ("in Opened: RTA with tld,scr reaching Opened").
func specLabel(n engine.Note) string {
	msg := n.Msg
	if n.Kind == engine.NoteSpecRefused {
		_, msg, _ = strings.Cut(msg, ": ")
		ev, _, _ := strings.Cut(msg, " ")
		return "✗ " + ev
	}
	ev, _, _ := strings.Cut(msg, ":")
	return ev
}
