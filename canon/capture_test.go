package canon_test

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// A set element with a nested set and a plain slice: its encoding has an inner order, and memory
// the sharing checks must see once.
type labelled struct {
	K    uint8
	Tags []uint8 `cmc:"set"`
	Raw  []int16
}

type labelledSet struct {
	S []labelled `cmc:"set"`
}

func el(k uint8, tags ...uint8) labelled { return labelled{K: k, Tags: tags, Raw: []int16{int16(k)}} }

// A set is encoded the same, and said to be as decoded only when it is, wherever it is out of
// order: at its first element, only at its last, only inside an element, or nowhere.
func TestSetOrderWherever(t *testing.T) {
	sorted := []labelled{el(1, 2, 3), el(2), el(2), el(5, 1)}
	for _, c := range []struct {
		name    string
		s       []labelled
		inOrder bool
	}{
		{"in order", []labelled{el(1, 2, 3), el(2), el(2), el(5, 1)}, true},
		{"first two swapped", []labelled{el(2), el(1, 2, 3), el(2), el(5, 1)}, false},
		{"last appended out of order", []labelled{el(2), el(2), el(5, 1), el(1, 2, 3)}, false},
		{"last appended, equal to one before", []labelled{el(1, 2, 3), el(2), el(5, 1), el(2)}, false},
		{"reversed", []labelled{el(5, 1), el(2), el(2), el(1, 2, 3)}, false},
		{"an element's own set", []labelled{el(1, 3, 2), el(2), el(2), el(5, 1)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want, got []byte
			var enc canon.Encoder
			capture := func(s []labelled) ([]byte, bool) {
				var out []byte
				root := canon.Root{Name: "s", V: reflect.ValueOf(&labelledSet{S: s})}
				if err := enc.EncodeComponents([]canon.Root{root}, func(_ int, b []byte) { out = bytes.Clone(b) }, nil); err != nil {
					t.Fatal(err)
				}
				return out, enc.AsDecoded()
			}
			want, _ = capture(sorted)
			got, asDecoded := capture(c.s)
			if !bytes.Equal(got, want) {
				t.Errorf("encodes as\n%x, not as the sorted set's\n%x", got, want)
			}
			if asDecoded != c.inOrder {
				t.Errorf("AsDecoded %t, want %t", asDecoded, c.inOrder)
			}
			// SortSets leaves the live set as Decode would restore it.
			live := &labelledSet{S: slices.Clone(c.s)}
			if err := enc.SortSets([]canon.Root{{Name: "s", V: reflect.ValueOf(live)}}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(live.S, sorted) {
				t.Errorf("SortSets left %v, want %v", live.S, sorted)
			}
		})
	}
}

type ruled struct {
	A []uint8
}

// An Encoder remembers what a root's type tells a capture, and forgets it when the rules change:
// a rule making the root's field a set changes the next capture's bytes.
func TestRootPlanFollowsRules(t *testing.T) {
	t.Cleanup(func() { canon.SetRules(nil) })
	var enc canon.Encoder
	capture := func() []byte {
		b, err := enc.Encode(nil, &ruled{A: []uint8{2, 1}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plain := capture()
	if err := canon.SetRules([]canon.Rule{{Type: canon.TypeName(reflect.TypeFor[ruled]()), Field: "A", Tag: "set"}}); err != nil {
		t.Fatal(err)
	}
	asSet := capture()
	if bytes.Equal(plain, asSet) {
		t.Fatalf("the rule made no difference: %x", asSet)
	}
	if want := encode(t, &ruled{A: []uint8{1, 2}}); !bytes.Equal(asSet, want) {
		t.Errorf("under the rule, {2, 1} encodes as %x, not as {1, 2}: %x", asSet, want)
	}
}
