package aodv

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

func wireSamples() []Message {
	return []Message{
		{Type: TypeRREQ, Flags: FlagUnknownSeq | FlagGratuitous, HopCount: 3, RREQID: 0x01020304,
			Dest: 9, DestSeq: 0, Orig: 2, OrigSeq: 0xfffffffe},
		{Type: TypeRREQ, Flags: FlagJoin | FlagRepair | FlagDestOnly, RREQID: 1, Dest: 1, DestSeq: 7, Orig: 0, OrigSeq: 1},
		{Type: TypeRREP, Flags: FlagAck, HopCount: 254, Dest: 4, DestSeq: 5, Orig: 1, Lifetime: 6000},
		{Type: TypeRREP, Dest: 4, DestSeq: 5, Orig: 4},
		{Type: TypeRERR, Unreachable: []Unreachable{{Dest: 3, Seq: 1}}},
		{Type: TypeRERR, Flags: FlagNoDelete, Unreachable: []Unreachable{{3, 1}, {4, 0x80000000}, {0, 2}}},
	}
}

func TestWireRoundTrip(t *testing.T) {
	for _, m := range wireSamples() {
		b, err := Marshal(m)
		if err != nil {
			t.Fatalf("Marshal(%v): %v", m, err)
		}
		got, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("Unmarshal(Marshal(%v)): %v", m, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip: %v became %v", m, got)
		}
	}
}

func TestWireLayout(t *testing.T) {
	// Field positions as in RFC 3561 section 5, with one-byte addresses.
	for _, tc := range []struct {
		m   Message
		hex string
	}{
		{Message{Type: TypeRREQ, Flags: FlagUnknownSeq | FlagJoin, HopCount: 2, RREQID: 0x0a0b0c0d, Dest: 3, DestSeq: 0x11, Orig: 4, OrigSeq: 0x22},
			"01" + "88" + "00" + "02" + "0a0b0c0d" + "03" + "00000011" + "04" + "00000022"},
		{Message{Type: TypeRREP, Flags: FlagRepair, HopCount: 1, Dest: 3, DestSeq: 0x11, Orig: 4, Lifetime: 0x1770},
			"02" + "80" + "00" + "01" + "03" + "00000011" + "04" + "00001770"},
		{Message{Type: TypeRERR, Flags: FlagNoDelete, Unreachable: []Unreachable{{3, 0x11}, {5, 0x12}}},
			"03" + "80" + "00" + "02" + "0300000011" + "0500000012"},
	} {
		b, err := Marshal(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(b); got != tc.hex {
			t.Errorf("Marshal(%v) = %s, want %s", tc.m, got, tc.hex)
		}
	}
}

func TestWireIgnoresReservedBits(t *testing.T) {
	b, _ := Marshal(Message{Type: TypeRREP, Dest: 3, DestSeq: 1, HopCount: 1, Orig: 4})
	dirty := bytes.Clone(b)
	dirty[1] |= 0x3f // reserved bits after R and A
	dirty[2] |= 0xe0 // reserved bits before the prefix size
	m, err := Unmarshal(dirty)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Marshal(m); !bytes.Equal(again, b) {
		t.Errorf("reserved bits were not ignored: % x", again)
	}
}

func TestWireRefuses(t *testing.T) {
	rrep, _ := Marshal(Message{Type: TypeRREP, Dest: 3, DestSeq: 1, HopCount: 1, Orig: 4})
	subnet := bytes.Clone(rrep)
	subnet[2] = 24
	infinite := bytes.Clone(rrep)
	infinite[3] = 255
	for name, b := range map[string][]byte{
		"empty":            nil,
		"unknown type":     {4, 0, 0, 0},
		"short rreq":       make([]byte, 17),
		"long rrep":        append(bytes.Clone(rrep), 0),
		"subnet rrep":      subnet,
		"infinite hops":    infinite,
		"rerr of none":     {3, 0, 0, 0},
		"rerr count wrong": {3, 0, 0, 2, 1, 0, 0, 0, 1},
		"rreq to self":     {1, 0, 0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 5, 0, 0, 0, 1},
	} {
		if m, err := Unmarshal(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Unmarshal = %v, %v; want ErrMalformed", name, m, err)
		}
	}
	for _, m := range []Message{
		{Type: TypeRREQ, Flags: FlagAck, Dest: 1},
		{Type: TypeRREP, Dest: 1, RREQID: 3},
		{Type: TypeRERR, Dest: 1, Unreachable: []Unreachable{{1, 1}}},
		{Type: TypeRERR, Unreachable: make([]Unreachable, 256)},
	} {
		if _, err := Marshal(m); !errors.Is(err, ErrMalformed) {
			t.Errorf("Marshal(%v) = %v, want ErrMalformed", m, err)
		}
	}
}

// FuzzUnmarshal checks that Unmarshal never panics, and that whatever it accepts encodes again
// to a packet of the same length that decodes to the same message.
func FuzzUnmarshal(f *testing.F) {
	for _, m := range wireSamples() {
		b, err := Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Unmarshal(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Unmarshal error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		b2, err := Marshal(m)
		if err != nil {
			t.Fatalf("Unmarshal accepted %x as %v, which Marshal refuses: %v", b, m, err)
		}
		if len(b2) != len(b) {
			t.Fatalf("%x re-encoded as %x", b, b2)
		}
		m2, err := Unmarshal(b2)
		if err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("%v re-encoded as %x, decoded as %v, %v", m, b2, m2, err)
		}
	})
}
