package views

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/canon"
)

func TestStateDiff(t *testing.T) {
	before := []canon.Leaf{{Path: "A.seq", Value: "1"}, {Path: `A.routes["B"]`, Value: "1"}, {Path: `A.routes["C"]`, Value: "2"}, {Path: "B.seq", Value: "0"}}
	after := []canon.Leaf{{Path: "A.seq", Value: "2"}, {Path: `A.routes["B"]`, Value: "1"}, {Path: "B.seq", Value: "0"}, {Path: "B.up", Value: "true"}}
	rows := StateDiff(after, canon.Diff(before, after))
	want := []DiffRow{
		{Path: "A.seq", Kind: "changed", Old: "1", New: "2"},
		{Path: `A.routes["B"]`, New: "1"},
		{Path: `A.routes["C"]`, Kind: "removed", Old: "2"}, // beside its sibling
		{Path: "B.seq", New: "0"},
		{Path: "B.up", Kind: "added", New: "true"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Fatalf("rows (-want +got):\n%s", diff)
	}

	v := FilterDiff(rows, DiffFilter{HideUnchanged: true})
	if len(v.Rows) != 3 || v.Changes != 3 || v.Total != 5 || v.Matched != 3 {
		t.Errorf("hide unchanged: %+v", v)
	}
	v = FilterDiff(rows, DiffFilter{Text: "ROUTES"})
	if len(v.Rows) != 2 || v.Rows[1].Kind != "removed" {
		t.Errorf("text filter on path: %+v", v)
	}
	v = FilterDiff(rows, DiffFilter{Text: "true"})
	if len(v.Rows) != 1 || v.Rows[0].Path != "B.up" {
		t.Errorf("text filter on value: %+v", v)
	}
	v = FilterDiff(rows, DiffFilter{Limit: 2})
	if len(v.Rows) != 2 || v.Matched != 5 {
		t.Errorf("limit: %+v", v)
	}
	if v := FilterDiff(nil, DiffFilter{}); v.Rows == nil {
		t.Error("no rows must be [], not null")
	}
}

func TestStateDiffRemovedFirst(t *testing.T) {
	rows := StateDiff(nil, []canon.Change{{Path: "A.x", Kind: "removed", Old: "1"}})
	if len(rows) != 1 || rows[0].Kind != "removed" {
		t.Errorf("rows %+v", rows)
	}
}

type pkt struct {
	From, To string
	Hops     int
}

type air struct {
	Pending []pkt `cmc:"set"`
}

// A packet taken out of the middle of a set is one row, removed, its fields in one line, shown
// where it stood among the others; the packets after it are unchanged (they were named by position once, and
// every one of them "changed").
func TestStateDiffBySetElement(t *testing.T) {
	leaves := func(a *air) []canon.Leaf {
		return canon.NewGraph([]canon.Root{{Name: "net", V: reflect.ValueOf(a)}}).Leaves()
	}
	x, y, z := pkt{"A", "B", 0}, pkt{"B", "C", 1}, pkt{"C", "D", 2}
	after := leaves(&air{Pending: []pkt{z, x}})
	rows := StateDiff(after, canon.Diff(leaves(&air{Pending: []pkt{x, y, z}}), after))
	var got []string
	for _, r := range rows {
		got = append(got, string(r.Kind)+" "+r.Path)
	}
	want := []string{
		` net.Pending[{"A" "B" 0}].From`,
		` net.Pending[{"A" "B" 0}].To`,
		` net.Pending[{"A" "B" 0}].Hops`,
		`removed net.Pending[{"B" "C" 1}]`,
		` net.Pending[{"C" "D" 2}].From`,
		` net.Pending[{"C" "D" 2}].To`,
		` net.Pending[{"C" "D" 2}].Hops`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if v := FilterDiff(rows, DiffFilter{}); v.Changes != 1 || v.Total != 7 {
		t.Errorf("%d changed of %d, want 1 of 7", v.Changes, v.Total)
	}
	if r := rows[3]; r.Old != `{From: "B", To: "C", Hops: 1}` {
		t.Errorf("the removed packet's row reads %q", r.Old)
	}
}
