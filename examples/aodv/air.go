package aodv

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cmc-go/cmc"
)

// This file is part of the checker's harness (with model.go and invariants.go): the radio channel
// between the model's nodes. The router knows nothing of it.

// Everyone is the To of a broadcast packet: the local broadcast address.
const Everyone NodeID = 255

// errFull is what a send into a full channel returns: the packet is lost, as on a real network.
var errFull = errors.New("the air is full")

// A Packet is a message in the air: a unicast to To, or a broadcast (To is Everyone) that the
// neighbours in Hear may still hear.
type Packet struct {
	From, To NodeID
	Hear     []NodeID // a broadcast's neighbours that have not heard it yet, sorted; nil for a unicast
	Msg      Message
}

func (p *Packet) broadcast() bool { return p.To == Everyone }

// String is how the debugger names a packet in the air (a set's elements are named by value):
// A->B RREP{…}, or A->* [B C] RREQ{…} for a broadcast and who may still hear it.
func (p Packet) String() string {
	if p.broadcast() {
		return fmt.Sprintf("%s->* %v %s", p.From, p.Hear, p.Msg)
	}
	return fmt.Sprintf("%s->%s %s", p.From, p.To, p.Msg)
}

// hears reports whether node n may receive p next.
func (p *Packet) hears(n NodeID) bool {
	if p.broadcast() {
		_, ok := slices.BinarySearch(p.Hear, n)
		return ok
	}
	return p.To == n
}

// Air is the model's network (CMC thesis, section 4.4.2): one bounded, unordered channel shared by
// all nodes, so the topology is complete. Any packet in the air may arrive next, so every
// reordering is explored, and a delivery may lose the packet instead (a choice, when the model's
// fault budget allows one).
//
// A broadcast is one transmission, as on a radio: one packet in the air, which takes one place of
// the bound. By default (Hear = 1) one neighbour hears it, the one whose receive event takes it,
// and the others miss it. With a larger Hear, a neighbour that hears it chooses whether it stays
// in the air for those that have not heard it yet, up to Hear of them, in any order, interleaved
// with everything else; with Hear = nodes-1 every subset of the neighbours, in every order, is
// one of the runs. With Copies a broadcast is instead one unicast copy per neighbour, each taking
// a place of the bound (the copies that do not fit are lost at the send) and each delivered or
// lost on its own.
type Air struct {
	Pending []Packet `cmc:"set"` // in flight; order is not state

	Bound  int      `cmc:"-"` // most packets in the air
	Hear   int      `cmc:"-"` // most neighbours that hear one broadcast
	Copies bool     `cmc:"-"` // a broadcast is one copy per neighbour
	Nodes  []NodeID `cmc:"-"` // who is on the channel
	// Links is the topology: Links[a][b] says that b hears what a sends, a broadcast or a
	// unicast (a unicast goes to a next hop, a neighbour). nil: every node hears every other,
	// the complete topology of the thesis's model; AODVChain and AODVGrid (scale.go) give
	// chains and grids.
	Links [][]bool `cmc:"-"`
}

func (a *Air) full() bool { return a.Bound > 0 && len(a.Pending) >= a.Bound }

// Send puts a unicast in the air, or fails with errFull at the bound.
func (a *Air) Send(from, to NodeID, m Message) error {
	if a.full() {
		note("drop", from, to, m, " (the air is full)")
		return errFull
	}
	a.Pending = append(a.Pending, Packet{From: from, To: to, Msg: m})
	note("send", from, to, m, "")
	return nil
}

// Broadcast sends m to every other node on the channel.
func (a *Air) Broadcast(from NodeID, m Message) error {
	hear := a.neighbours(from)
	if a.Copies {
		sent := 0
		for _, n := range hear {
			c := m
			c.Unreachable = slices.Clone(m.Unreachable) // each copy its own: captured state shares nothing
			if a.Send(from, n, c) == nil {
				sent++
			}
		}
		if sent == 0 {
			return errFull
		}
		return nil
	}
	if a.full() {
		for _, n := range hear {
			note("drop", from, n, m, " (the air is full)")
		}
		return errFull
	}
	a.Pending = append(a.Pending, Packet{From: from, To: Everyone, Hear: hear, Msg: m})
	// One send note per neighbour, so the sequence chart draws an arrow to each.
	for _, n := range hear {
		note("send", from, n, m, "")
	}
	return nil
}

// Waiting reports whether a packet for node n is in the air: the enabling condition of its
// receive event.
func (a *Air) Waiting(n NodeID) bool {
	for i := range a.Pending {
		if a.Pending[i].hears(n) {
			return true
		}
	}
	return false
}

// Receive takes a packet for node to out of the air. Which one is a choice when there are several.
// When mayLose is set, whether it is lost on the way is a choice too (ok is false: lost, and a
// lost broadcast is missed by all that had not heard it yet). A broadcast that the others may
// still hear (see Air) stays in the air for them or not, a third choice.
func (a *Air) Receive(to NodeID, mayLose bool) (p Packet, ok bool) {
	var mine []int
	for i := range a.Pending {
		if a.Pending[i].hears(to) {
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		return p, false
	}
	i := mine[0]
	if len(mine) > 1 {
		verb := "deliver" // or, when it may be lost, the next choice says which
		if mayLose {
			verb = "take"
		}
		i = cmc.ChooseOf(mine, func(i int) string { return arrival(verb, a.Pending[i], to) })
	}
	p = a.Pending[i]
	a.Pending = slices.Delete(a.Pending, i, i+1)
	var rest []NodeID // a broadcast's neighbours that have not heard it, but to
	if p.broadcast() {
		rest = slices.DeleteFunc(slices.Clone(p.Hear), func(n NodeID) bool { return n == to })
	}
	missed := func() {
		for _, n := range rest {
			note("lose", p.From, n, p.Msg, "")
		}
	}
	if mayLose && cmc.ChooseOf(noYes, func(lost bool) string { return arrival(lossVerb(lost), p, to) }) {
		note("lose", p.From, to, p.Msg, "")
		missed()
		return p, false
	}
	note("deliver", p.From, to, p.Msg, "")
	if len(rest) > 0 {
		heard := len(a.neighbours(p.From)) - len(rest)
		if heard < a.Hear && cmc.ChooseOf(noYes, func(stays bool) string { return staying(stays, p, rest) }) {
			m := p.Msg
			m.Unreachable = slices.Clone(m.Unreachable) // the receiver got p.Msg
			a.Pending = append(a.Pending, Packet{From: p.From, To: Everyone, Hear: rest, Msg: m})
		} else {
			missed()
		}
	}
	return p, true
}

// noYes are the two answers of a yes-or-no choice, in the order of Choose(2) == 1.
var noYes = []bool{false, true}

// arrival names a choice of what happens to packet p at node to, as the debugger shows it:
// "deliver RREP C→A". The labels are made only when a trace is recorded (cmc.ChooseOf).
func arrival(verb string, p Packet, to NodeID) string {
	return fmt.Sprintf("%s %v %s→%s", verb, p.Msg.Type, p.From, to)
}

func lossVerb(lost bool) string {
	if lost {
		return "lose"
	}
	return "deliver"
}

// staying names the choice whether a broadcast stays in the air for the neighbours that have
// not heard it.
func staying(stays bool, p Packet, rest []NodeID) string {
	if stays {
		return fmt.Sprintf("%v %s→* stays in the air for %v", p.Msg.Type, p.From, rest)
	}
	return fmt.Sprintf("%v %s→* heard by no one else", p.Msg.Type, p.From)
}

// note records a network event for the trace and the sequence chart.
func note(kind string, from, to NodeID, m Message, extra string) {
	if !cmc.Noting() {
		return
	}
	cmc.Record(cmc.Note{Kind: kind, From: from.String(), To: to.String(), Msg: m.String() + extra})
}

// neighbours are the nodes that hear what from sends (see Links).
func (a *Air) neighbours(from NodeID) []NodeID {
	var hear []NodeID
	for _, n := range a.Nodes {
		if n != from && (a.Links == nil || a.Links[from][n]) {
			hear = append(hear, n)
		}
	}
	return hear
}
