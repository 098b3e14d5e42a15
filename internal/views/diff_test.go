package views

import (
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
