package aodv

import (
	"fmt"
	"strings"
)

// Infinity is the hop count of an invalid route (RFC 3561 keeps hop counts in a byte).
const Infinity uint8 = 255

// MsgType is the AODV message type, numbered as on the wire (RFC 3561 section 5).
type MsgType uint8

const (
	TypeRREQ MsgType = 1 // route request, flooded
	TypeRREP MsgType = 2 // route reply, unicast back along the reverse route
	TypeRERR MsgType = 3 // route error, to the precursors of broken routes
)

func (t MsgType) String() string {
	switch t {
	case TypeRREQ:
		return "RREQ"
	case TypeRREP:
		return "RREP"
	case TypeRERR:
		return "RERR"
	}
	return fmt.Sprintf("MsgType(%d)", uint8(t))
}

// Flags are the one-bit fields of all message types. Each type allows only its own (see allowed);
// the wire positions are in wire.go.
type Flags uint8

const (
	FlagJoin       Flags = 1 << iota // J (RREQ): multicast join, carried but unused here
	FlagRepair                       // R (RREQ, RREP): multicast repair, carried but unused here
	FlagGratuitous                   // G (RREQ): an intermediate replier also tells the destination
	FlagDestOnly                     // D (RREQ): only the destination may reply
	FlagUnknownSeq                   // U (RREQ): the originator knows no sequence number for Dest
	FlagAck                          // A (RREP): acknowledgment requested, carried but unused here
	FlagNoDelete                     // N (RERR): a local repair is under way, carried but unused here
)

// allowed is a function rather than a table so that the package holds no variables.
func allowed(t MsgType) Flags {
	switch t {
	case TypeRREQ:
		return FlagJoin | FlagRepair | FlagGratuitous | FlagDestOnly | FlagUnknownSeq
	case TypeRREP:
		return FlagRepair | FlagAck
	case TypeRERR:
		return FlagNoDelete
	}
	return 0
}

// Unreachable is one destination listed in an RERR, with the sequence number the sender holds
// for it after invalidating its route.
type Unreachable struct {
	Dest NodeID
	Seq  uint32
}

// Message is one AODV control message. It is a flat union: Type says which fields are used, and
// Validate insists that the others are zero, so two equal messages have equal encodings.
//
//	RREQ: Flags, HopCount, RREQID, Dest, DestSeq, Orig, OrigSeq
//	RREP: Flags, HopCount, Dest, DestSeq, Orig, Lifetime
//	RERR: Flags, Unreachable
type Message struct {
	Type        MsgType
	Flags       Flags
	HopCount    uint8  // hops travelled (RREQ), hops from the sender to Dest (RREP)
	RREQID      uint32 // per-originator request id
	Dest        NodeID // the node a route is wanted to (RREQ) or offered to (RREP)
	DestSeq     uint32
	Orig        NodeID // the node that wanted the route
	OrigSeq     uint32
	Lifetime    uint32 // ticks the offered route stays valid (RREP)
	Unreachable []Unreachable
}

// Validate reports why m cannot be a well-formed AODV message, wrapping ErrMalformed. Marshal,
// Unmarshal and Receive all use it, so a message that Receive accepts can be sent over the wire.
func (m Message) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %v: %s", ErrMalformed, m.Type, fmt.Sprintf(format, args...))
	}
	if allowed(m.Type) == 0 {
		return fmt.Errorf("%w: unknown message type %d", ErrMalformed, uint8(m.Type))
	}
	if extra := m.Flags &^ allowed(m.Type); extra != 0 {
		return bad("flags %#x not defined for this type", uint8(extra))
	}
	switch m.Type {
	case TypeRREQ:
		if m.Lifetime != 0 || m.Unreachable != nil {
			return bad("lifetime and unreachable list must be empty")
		}
		if m.Orig == m.Dest {
			return bad("originator %v requests a route to itself", m.Orig)
		}
	case TypeRREP:
		if m.RREQID != 0 || m.OrigSeq != 0 || m.Unreachable != nil {
			return bad("rreq id, originator sequence number and unreachable list must be empty")
		}
	case TypeRERR:
		if m.HopCount != 0 || m.RREQID != 0 || m.Dest != 0 || m.DestSeq != 0 || m.Orig != 0 ||
			m.OrigSeq != 0 || m.Lifetime != 0 {
			return bad("only flags and the unreachable list may be set")
		}
		if n := len(m.Unreachable); n < 1 || n > 255 {
			return bad("lists %d destinations, want 1 to 255", n)
		}
	}
	if m.HopCount == Infinity {
		// Table 4.2 of the CMC thesis: a packet never carries an infinite hop count.
		return bad("hop count is infinity")
	}
	return nil
}

func (m Message) String() string {
	var b strings.Builder
	b.WriteString(m.Type.String())
	b.WriteString("{")
	switch m.Type {
	case TypeRREQ:
		fmt.Fprintf(&b, "id %d orig %v seq %d dest %v ", m.RREQID, m.Orig, m.OrigSeq, m.Dest)
		if m.Flags&FlagUnknownSeq != 0 {
			b.WriteString("seq ?")
		} else {
			fmt.Fprintf(&b, "seq %d", m.DestSeq)
		}
		fmt.Fprintf(&b, " hops %d", m.HopCount)
	case TypeRREP:
		fmt.Fprintf(&b, "dest %v seq %d hops %d orig %v life %d", m.Dest, m.DestSeq, m.HopCount, m.Orig, m.Lifetime)
	case TypeRERR:
		for i, u := range m.Unreachable {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%v:%d", u.Dest, u.Seq)
		}
	}
	if f := m.Flags; f != 0 {
		fmt.Fprintf(&b, " flags %#x", uint8(f))
	}
	b.WriteString("}")
	return b.String()
}
