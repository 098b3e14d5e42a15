package lcp

import "fmt"

// A Code is an LCP packet's code (RFC 1661 section 5).
type Code uint8

const (
	ConfReq Code = 1 // Configure-Request
	ConfAck Code = 2 // Configure-Ack
	ConfNak Code = 3 // Configure-Nak
	ConfRej Code = 4 // Configure-Reject
	TermReq Code = 5 // Terminate-Request
	TermAck Code = 6 // Terminate-Ack
)

var codeNames = [...]string{ConfReq: "Configure-Request", ConfAck: "Configure-Ack", ConfNak: "Configure-Nak",
	ConfRej: "Configure-Reject", TermReq: "Terminate-Request", TermAck: "Terminate-Ack"}

func (c Code) String() string {
	if int(c) < len(codeNames) && codeNames[c] != "" {
		return codeNames[c]
	}
	return fmt.Sprintf("code %d", uint8(c))
}

// Options are the configuration options this implementation negotiates (RFC 1661 section 6): the
// Maximum-Receive-Unit (0: not present) and Protocol-Field-Compression. In a Configure-Request
// they are what the sender asks for; in a Nak, the values the receiver would accept; in a
// Reject, the options it does not recognise or will not negotiate.
type Options struct {
	MRU uint16
	PFC bool
}

// Empty reports whether no option is present.
func (o Options) Empty() bool { return o == Options{} }

func (o Options) String() string {
	s := "{"
	if o.MRU != 0 {
		s += fmt.Sprintf("MRU=%d", o.MRU)
	}
	if o.PFC {
		if len(s) > 1 {
			s += " "
		}
		s += "PFC"
	}
	return s + "}"
}

// A Packet is one LCP packet: code, identifier and, for the Configure packets, options. It is a
// value (no pointers), as it is on the wire.
type Packet struct {
	Code Code
	ID   uint8
	Opts Options
}

func (p Packet) String() string {
	if p.Code <= ConfRej {
		return fmt.Sprintf("%v id=%d %v", p.Code, p.ID, p.Opts)
	}
	return fmt.Sprintf("%v id=%d", p.Code, p.ID)
}
