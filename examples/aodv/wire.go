package aodv

import (
	"encoding/binary"
	"fmt"
)

// The wire format is RFC 3561 section 5 with one-byte addresses, big-endian, so the router can
// run over UDP (port 654) as well as under the checker:
//
//	RREQ, 18 bytes: type=1 | J R G D U 0 0 0 | reserved | hop count | RREQ id (4) |
//	                dest | dest seq (4) | orig | orig seq (4)
//	RREP, 14 bytes: type=2 | R A 0 0 0 0 0 0 | 0 0 0 prefix size (5 bits) | hop count |
//	                dest | dest seq (4) | orig | lifetime (4)
//	RERR, 4+5n:     type=3 | N 0 0 0 0 0 0 0 | reserved | n | n × (dest | dest seq (4))
//
// Reserved bits are sent as zero and ignored on reception, as the RFC says. Not supported, and
// refused: RREP-ACK (type 4), subnet routes (a non-zero prefix size) and extensions (bytes after
// the message).

const (
	rreqLen      = 18
	rrepLen      = 14
	rerrHeadLen  = 4
	rerrEntryLen = 5
)

type flagBit struct {
	flag Flags
	bit  byte
}

// flagBits says where each flag of a message type sits in its second byte.
func flagBits(t MsgType) []flagBit {
	switch t {
	case TypeRREQ:
		return []flagBit{{FlagJoin, 0x80}, {FlagRepair, 0x40}, {FlagGratuitous, 0x20}, {FlagDestOnly, 0x10}, {FlagUnknownSeq, 0x08}}
	case TypeRREP:
		return []flagBit{{FlagRepair, 0x80}, {FlagAck, 0x40}}
	case TypeRERR:
		return []flagBit{{FlagNoDelete, 0x80}}
	}
	return nil
}

// Marshal encodes m for the wire. It refuses a message that fails Validate.
func Marshal(m Message) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	var flags byte
	for _, fb := range flagBits(m.Type) {
		if m.Flags&fb.flag != 0 {
			flags |= fb.bit
		}
	}
	be := binary.BigEndian
	var b []byte
	switch m.Type {
	case TypeRREQ:
		b = make([]byte, 0, rreqLen)
		b = append(b, byte(m.Type), flags, 0, m.HopCount)
		b = be.AppendUint32(b, m.RREQID)
		b = append(b, byte(m.Dest))
		b = be.AppendUint32(b, m.DestSeq)
		b = append(b, byte(m.Orig))
		b = be.AppendUint32(b, m.OrigSeq)
	case TypeRREP:
		b = make([]byte, 0, rrepLen)
		b = append(b, byte(m.Type), flags, 0, m.HopCount, byte(m.Dest))
		b = be.AppendUint32(b, m.DestSeq)
		b = append(b, byte(m.Orig))
		b = be.AppendUint32(b, m.Lifetime)
	case TypeRERR:
		b = make([]byte, 0, rerrHeadLen+rerrEntryLen*len(m.Unreachable))
		b = append(b, byte(m.Type), flags, 0, byte(len(m.Unreachable)))
		for _, u := range m.Unreachable {
			b = append(b, byte(u.Dest))
			b = be.AppendUint32(b, u.Seq)
		}
	}
	return b, nil
}

// Unmarshal decodes one message from b, which must hold exactly one. What it returns passes
// Validate, and Marshal gives back b with its reserved bits cleared.
func Unmarshal(b []byte) (Message, error) {
	m, err := unmarshal(b)
	if err == nil {
		err = m.Validate()
	}
	if err != nil {
		return Message{}, fmt.Errorf("unmarshal %d bytes: %w", len(b), err)
	}
	return m, nil
}

func unmarshal(b []byte) (Message, error) {
	if len(b) == 0 {
		return Message{}, fmt.Errorf("%w: empty packet", ErrMalformed)
	}
	m := Message{Type: MsgType(b[0])}
	wrongLen := func(want int) error {
		return fmt.Errorf("%w: %v of %d bytes, want %d", ErrMalformed, m.Type, len(b), want)
	}
	be := binary.BigEndian
	switch m.Type {
	case TypeRREQ:
		if len(b) != rreqLen {
			return Message{}, wrongLen(rreqLen)
		}
		m.HopCount = b[3]
		m.RREQID = be.Uint32(b[4:])
		m.Dest = NodeID(b[8])
		m.DestSeq = be.Uint32(b[9:])
		m.Orig = NodeID(b[13])
		m.OrigSeq = be.Uint32(b[14:])
	case TypeRREP:
		if len(b) != rrepLen {
			return Message{}, wrongLen(rrepLen)
		}
		if size := b[2] & 0x1f; size != 0 {
			return Message{}, fmt.Errorf("%w: rrep for a subnet (prefix size %d) is not supported", ErrMalformed, size)
		}
		m.HopCount = b[3]
		m.Dest = NodeID(b[4])
		m.DestSeq = be.Uint32(b[5:])
		m.Orig = NodeID(b[9])
		m.Lifetime = be.Uint32(b[10:])
	case TypeRERR:
		if len(b) < rerrHeadLen {
			return Message{}, wrongLen(rerrHeadLen)
		}
		n := int(b[3])
		if want := rerrHeadLen + rerrEntryLen*n; len(b) != want {
			return Message{}, wrongLen(want)
		}
		if n > 0 {
			m.Unreachable = make([]Unreachable, n)
		}
		for i := range m.Unreachable {
			e := b[rerrHeadLen+rerrEntryLen*i:]
			m.Unreachable[i] = Unreachable{Dest: NodeID(e[0]), Seq: be.Uint32(e[1:])}
		}
	default:
		return Message{}, fmt.Errorf("%w: unknown message type %d", ErrMalformed, b[0])
	}
	for _, fb := range flagBits(m.Type) {
		if b[1]&fb.bit != 0 {
			m.Flags |= fb.flag
		}
	}
	return m, nil
}
