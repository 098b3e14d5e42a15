package canon

import (
	"reflect"
	"testing"
)

// A packet that left the network is one change, a new route entry is one, a field that changed
// stays one, and an element that only lost some of its leaves lists them.
func TestWholes(t *testing.T) {
	gone := "net.Pending[A->* [B C D] RREQ{id 1}]"
	after := []Leaf{
		{"B.routes[Dest=D].NextHop", "A"},
		{"B.routes[Dest=D].Seq", "1"},
		{"B.routes[Dest=C].Seq", "2"},
		{"net.Pending[C->A RREP].From", "C"},
		{"net.Pending[C->A RREP].Hear[0]", "A"},
		{"net.Sent", "4"},
	}
	changes := []Change{
		{Path: "B.routes[Dest=D].NextHop", Kind: "added", New: "A"},
		{Path: "B.routes[Dest=D].Seq", Kind: "added", New: "1"},
		{Path: "B.routes[Dest=C].Seq", Kind: "changed", Old: "1", New: "2"},
		{Path: "net.Sent", Kind: "changed", Old: "3", New: "4"},
		{Path: gone + ".From", Kind: "removed", Old: "A"},
		{Path: gone + ".Hear[0]", Kind: "removed", Old: "B"},
		{Path: gone + ".Hear[1]", Kind: "removed", Old: "C"},
		{Path: "net.Pending[C->A RREP].Hear[1]", Kind: "removed", Old: "B"},
	}
	want := []Change{
		{Path: "B.routes[Dest=D]", Kind: "added", New: "{NextHop: A, Seq: 1}"},
		{Path: "B.routes[Dest=C].Seq", Kind: "changed", Old: "1", New: "2"},
		{Path: "net.Sent", Kind: "changed", Old: "3", New: "4"},
		{Path: gone, Kind: "removed", Old: "{From: A, Hear[0]: B, Hear[1]: C}"},
		{Path: "net.Pending[C->A RREP].Hear[1]", Kind: "removed", Old: "B"},
	}
	if got := Wholes(changes, after); !reflect.DeepEqual(got, want) {
		t.Errorf("Wholes:\n got %+v\nwant %+v", got, want)
	}
	// A removed map entry whose value is a scalar is itself the element: nothing to group.
	single := []Change{{Path: "A.seen[7]", Kind: "removed", Old: "true"}}
	if got := Wholes(single, nil); !reflect.DeepEqual(got, single) {
		t.Errorf("a scalar entry: got %+v", got)
	}
}
