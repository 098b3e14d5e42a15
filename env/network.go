package env

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/cmc-go/cmc"
)

// ErrFull is returned by Send when the network already holds Bound messages.
var ErrFull = errors.New("network full")

// A Packet is a message in flight.
type Packet[M any] struct {
	From, To int
	Msg      M
}

// A Network is an unordered, bounded network: any pending message may be delivered next, so every
// reordering is explored. Loss and duplication, when enabled, are explicit choices at delivery.
// Register it with Model.Environment. M must hold no pointers, maps or interfaces (messages are
// values on a wire).
type Network[M any] struct {
	Pending []Packet[M] `cmc:"set"` // in flight; order is not state

	Bound int  `cmc:"-"` // most messages in flight; 0: unbounded
	Loss  bool `cmc:"-"` // a delivery may lose the message instead
	Dup   bool `cmc:"-"` // a delivery may leave a copy in flight
	// Names renders addresses in notes (the views' sequence chart); nil renders numbers.
	Names []string `cmc:"-"`
}

// Send puts m in flight from one address to another. It fails with ErrFull at the bound, as a
// send can fail on a real network: the caller must cope.
func (n *Network[M]) Send(from, to int, m M) error {
	if n.Bound > 0 && len(n.Pending) >= n.Bound {
		n.note("drop", from, to, m, " (network full)")
		return ErrFull
	}
	n.Pending = append(n.Pending, Packet[M]{From: from, To: to, Msg: m})
	n.note("send", from, to, m, "")
	return nil
}

// Waiting reports whether a message for address to is in flight: the enabling condition of a
// receive event.
func (n *Network[M]) Waiting(to int) bool {
	for i := range n.Pending {
		if n.Pending[i].To == to {
			return true
		}
	}
	return false
}

// Receive takes a message for address to out of the network. Which one is a choice; with Loss it
// may be lost on the way (ok is false); with Dup a copy may stay in flight.
func (n *Network[M]) Receive(to int) (p Packet[M], ok bool) {
	var mine []int
	for i := range n.Pending {
		if n.Pending[i].To == to {
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		return p, false
	}
	i := mine[0]
	if len(mine) > 1 {
		i = mine[cmc.Choose(len(mine))]
	}
	p = n.Pending[i]
	if n.Dup && (n.Bound == 0 || len(n.Pending) < n.Bound) && cmc.Choose(2) == 1 {
		n.note("dup", p.From, p.To, p.Msg, "")
	} else {
		n.Pending = append(n.Pending[:i:i], n.Pending[i+1:]...)
	}
	if n.Loss && cmc.Choose(2) == 1 {
		n.note("lose", p.From, p.To, p.Msg, "")
		return p, false
	}
	n.note("deliver", p.From, p.To, p.Msg, "")
	return p, true
}

func (n *Network[M]) note(kind string, from, to int, m M, extra string) {
	if !cmc.Noting() {
		return
	}
	cmc.Record(cmc.Note{Kind: kind, From: n.name(from), To: n.name(to), Msg: fmt.Sprintf("%+v", m) + extra})
}

func (n *Network[M]) name(a int) string {
	if a >= 0 && a < len(n.Names) {
		return n.Names[a]
	}
	return strconv.Itoa(a)
}
