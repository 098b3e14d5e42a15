package store

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// Steps are stored compactly: every string of a trace (paths, values, sites, note fields) is
// written once, in the trace's string table, and the step blobs refer to it by number as
// unsigned varints. Number 0 is always the empty string. A blob holds its items back to back,
// with no count: it ends where the items end. The layouts:
//
//	choices:  value (zigzag varint) n (zigzag varint) site (ref)         per Choose call
//	labels:   label (ref)                      per Choose call; NULL when no call has a label
//	notes:    kind from to msg (refs)                                    per note
//	changes:  path<<2|k (uvarint), then by k:                            per change
//	          0 added: new   1 changed: old new   2 removed: old   3 other: kind old new
//	leaves:   path value (refs)                                          per leaf
//
// The string table is a uvarint count, then each string as a uvarint length and its bytes,
// after a one-byte format: 0 as is, 1 deflated (used when it is smaller).

// errCorrupt says a stored blob does not decode: the file was damaged or written by a broken
// encoder. The callers wrap it with the trace and step.
var errCorrupt = errors.New("corrupt step encoding")

// maxStrings bounds the inflated string table, so a damaged blob cannot ask for unbounded memory.
const maxStrings = 1 << 30

// A dict numbers the strings of one trace as it is encoded.
type dict struct {
	ids  map[string]uint64
	strs []string
}

func newDict() *dict { return &dict{ids: map[string]uint64{"": 0}, strs: []string{""}} }

func (d *dict) ref(s string) uint64 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	id := uint64(len(d.strs))
	d.ids[s] = id
	d.strs = append(d.strs, s)
	return id
}

// encodeStrings writes the table of a dict (without the implicit empty string at 0).
func encodeStrings(strs []string) []byte {
	var raw []byte
	raw = binary.AppendUvarint(raw, uint64(len(strs)-1))
	for _, s := range strs[1:] {
		raw = binary.AppendUvarint(raw, uint64(len(s)))
		raw = append(raw, s...)
	}
	var z bytes.Buffer
	z.WriteByte(1)
	w, _ := flate.NewWriter(&z, flate.BestSpeed) // the level is valid: no error
	w.Write(raw)
	w.Close()
	if z.Len() < len(raw)+1 {
		return z.Bytes()
	}
	return append([]byte{0}, raw...)
}

// decodeStrings reads a string table; strs[0] is the empty string.
func decodeStrings(b []byte) ([]string, error) {
	if len(b) == 0 {
		return nil, errCorrupt
	}
	raw := b[1:]
	switch b[0] {
	case 0:
	case 1:
		var err error
		raw, err = io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(b[1:])), maxStrings))
		if err != nil {
			return nil, fmt.Errorf("%w: string table: %v", errCorrupt, err)
		}
	default:
		return nil, fmt.Errorf("%w: string table format %d", errCorrupt, b[0])
	}
	r := reader{b: raw}
	n := r.uvarint()
	if r.err != nil || n > uint64(len(raw)) { // every string takes at least its length byte
		return nil, errCorrupt
	}
	// One allocation for all the bytes: the strings are slices of it.
	all := string(raw)
	strs := make([]string, 1, n+1)
	for range n {
		l := r.uvarint()
		if r.err != nil || l > uint64(len(r.b)) {
			return nil, errCorrupt
		}
		start := len(raw) - len(r.b)
		strs = append(strs, all[start:start+int(l)])
		r.b = r.b[l:]
	}
	if len(r.b) != 0 {
		return nil, errCorrupt
	}
	return strs, nil
}

func appendChoices(b []byte, d *dict, cs []engine.Choice) []byte {
	for _, c := range cs {
		b = binary.AppendVarint(b, int64(c.Value))
		b = binary.AppendVarint(b, int64(c.N))
		b = binary.AppendUvarint(b, d.ref(c.Site))
	}
	return b
}

// appendLabels writes the choices' labels, or nothing when none has one (most steps).
func appendLabels(b []byte, d *dict, cs []engine.Choice) []byte {
	for _, c := range cs {
		if c.Label != "" {
			for _, c := range cs {
				b = binary.AppendUvarint(b, d.ref(c.Label))
			}
			return b
		}
	}
	return b
}

func appendNotes(b []byte, d *dict, ns []engine.Note) []byte {
	for _, n := range ns {
		b = binary.AppendUvarint(b, d.ref(n.Kind))
		b = binary.AppendUvarint(b, d.ref(n.From))
		b = binary.AppendUvarint(b, d.ref(n.To))
		b = binary.AppendUvarint(b, d.ref(n.Msg))
	}
	return b
}

const (
	kindAdded = iota
	kindChanged
	kindRemoved
	kindOther // any change the three short forms cannot hold exactly
)

func appendChanges(b []byte, d *dict, cs []canon.Change) []byte {
	for _, c := range cs {
		k := uint64(kindOther)
		switch {
		case c.Kind == "added" && c.Old == "":
			k = kindAdded
		case c.Kind == "changed":
			k = kindChanged
		case c.Kind == "removed" && c.New == "":
			k = kindRemoved
		}
		b = binary.AppendUvarint(b, d.ref(c.Path)<<2|k)
		switch k {
		case kindAdded:
			b = binary.AppendUvarint(b, d.ref(c.New))
		case kindChanged:
			b = binary.AppendUvarint(b, d.ref(c.Old))
			b = binary.AppendUvarint(b, d.ref(c.New))
		case kindRemoved:
			b = binary.AppendUvarint(b, d.ref(c.Old))
		default:
			b = binary.AppendUvarint(b, d.ref(c.Kind))
			b = binary.AppendUvarint(b, d.ref(c.Old))
			b = binary.AppendUvarint(b, d.ref(c.New))
		}
	}
	return b
}

func appendLeaves(b []byte, d *dict, ls []canon.Leaf) []byte {
	for _, l := range ls {
		b = binary.AppendUvarint(b, d.ref(l.Path))
		b = binary.AppendUvarint(b, d.ref(l.Value))
	}
	return b
}

// A reader decodes one blob against a string table; the first error sticks.
type reader struct {
	b    []byte
	strs []string
	err  error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 || int64(int(v)) != v {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *reader) str() string { return r.lookup(r.uvarint()) }

func (r *reader) lookup(id uint64) string {
	if r.err != nil {
		return ""
	}
	if id >= uint64(len(r.strs)) {
		r.err = fmt.Errorf("%w: string %d of %d", errCorrupt, id, len(r.strs))
		return ""
	}
	return r.strs[id]
}

func (r *reader) more() bool { return r.err == nil && len(r.b) > 0 }

func decodeChoices(b []byte, strs []string) ([]engine.Choice, error) {
	r := reader{b: b, strs: strs}
	var out []engine.Choice
	for r.more() {
		out = append(out, engine.Choice{Value: r.varint(), N: r.varint(), Site: r.str()})
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// decodeLabels sets the labels of cs from a labels blob: one per choice, or none.
func decodeLabels(b []byte, strs []string, cs []engine.Choice) error {
	if len(b) == 0 {
		return nil
	}
	r := reader{b: b, strs: strs}
	i := 0
	for ; r.more(); i++ {
		if i == len(cs) {
			return fmt.Errorf("%w: more labels than the %d choices", errCorrupt, len(cs))
		}
		cs[i].Label = r.str()
	}
	if r.err == nil && i != len(cs) {
		return fmt.Errorf("%w: %d labels for %d choices", errCorrupt, i, len(cs))
	}
	return r.err
}

func decodeNotes(b []byte, strs []string) ([]engine.Note, error) {
	r := reader{b: b, strs: strs}
	var out []engine.Note
	for r.more() {
		out = append(out, engine.Note{Kind: r.str(), From: r.str(), To: r.str(), Msg: r.str()})
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// decodeChanges reads a changes blob (see the layout above).
func decodeChanges(b []byte, strs []string) ([]canon.Change, error) {
	r := reader{b: b, strs: strs}
	var out []canon.Change
	for r.more() {
		head := r.uvarint()
		c := canon.Change{Path: r.lookup(head >> 2)}
		switch head & 3 {
		case kindAdded:
			c.Kind, c.New = "added", r.str()
		case kindChanged:
			c.Kind, c.Old = "changed", r.str()
			c.New = r.str()
		case kindRemoved:
			c.Kind, c.Old = "removed", r.str()
		default:
			c.Kind = r.str()
			c.Old = r.str()
			c.New = r.str()
		}
		out = append(out, c)
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

func decodeLeaves(b []byte, strs []string) ([]canon.Leaf, error) {
	r := reader{b: b, strs: strs}
	var out []canon.Leaf
	for r.more() {
		out = append(out, canon.Leaf{Path: r.str(), Value: r.str()})
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}
