package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cmc-go/cmc/canon"
)

// FuzzDecodeChanges decodes arbitrary string tables and change blobs: no panic, and what
// decodes encodes back to the same changes.
func FuzzDecodeChanges(f *testing.F) {
	d := newDict()
	blob := appendChanges(nil, d, richTrace().Steps[1].Changes)
	blob = appendChanges(blob, d, richTrace().Steps[0].Changes)
	f.Add(encodeStrings(d.strs), blob)
	f.Add([]byte{0, 2, 1, 'a', 1, 'b'}, []byte{4, 2, 5, 1, 2, 6, 1, 7, 0, 1, 2})
	f.Add([]byte{1}, []byte{0xff, 0xff})
	f.Fuzz(func(t *testing.T, table, blob []byte) {
		strs, err := decodeStrings(table)
		if err != nil {
			strs = []string{"", "a.b", "1"}
		}
		cs, err := decodeChanges(blob, strs)
		if err != nil {
			return
		}
		d := newDict()
		again, err := decodeChanges(appendChanges(nil, d, cs), d.strs)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(cs, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("re-encoded changes differ:\n%s", diff)
		}
		// What decodes folds without a panic.
		Apply([]canon.Leaf{{Path: "a.b", Value: "1"}}, cs)
	})
}

// FuzzDecodeStrings: a string table decodes or fails, and what decodes encodes back.
func FuzzDecodeStrings(f *testing.F) {
	f.Add(encodeStrings([]string{"", "A.seq", "B.routes[D].seq", "3"}))
	f.Add([]byte{0, 1, 3, 'a', 'b', 'c'})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		strs, err := decodeStrings(b)
		if err != nil {
			return
		}
		again, err := decodeStrings(encodeStrings(strs))
		if err != nil || !cmp.Equal(strs, again) {
			t.Fatalf("%q read back as %q, %v", strs, again, err)
		}
	})
}

// FuzzDecodeSteps: choices, labels, notes and leaves blobs decode or fail.
func FuzzDecodeSteps(f *testing.F) {
	d := newDict()
	st := richTrace().Steps[0]
	f.Add(appendChoices(nil, d, st.Choices), appendLabels(nil, d, st.Choices), appendNotes(nil, d, st.Notes), appendLeaves(nil, d, richTrace().Init))
	strs := d.strs
	f.Fuzz(func(t *testing.T, choices, labels, notes, leaves []byte) {
		if cs, err := decodeChoices(choices, strs); err == nil {
			decodeLabels(labels, strs, cs)
		}
		decodeNotes(notes, strs)
		decodeLeaves(leaves, strs)
	})
}
