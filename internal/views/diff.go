package views

import (
	"strings"

	"github.com/cmc-go/cmc/canon"
)

// A DiffRow is one leaf of the state after a step: unchanged (Kind ""), or added, changed or
// removed by the step. Removed rows are leaves of the state before the step.
type DiffRow struct {
	Path string   `json:"path"`
	Kind DiffKind `json:"kind,omitempty"`
	Old  string   `json:"old,omitempty"`
	New  string   `json:"new,omitempty"` // the value after the step (also of unchanged rows)
}

// A DiffKind is what a step did to a leaf: canon.Change's kinds; "" for an unchanged leaf.
type DiffKind string

const (
	Added   DiffKind = "added"
	Changed DiffKind = "changed"
	Removed DiffKind = "removed"
)

// DiffKinds are all the DiffKinds: the page's TypeScript type is their union (internal/gen).
var DiffKinds = []DiffKind{Added, Changed, Removed}

// StateDiff lists the state after a step with the step's changes marked: every leaf in state
// order, and each removed path beside the leaves it shares the longest prefix with, in path order
// among them (so a removed map entry or set element shows between its neighbours). An element the
// step added or removed whole is one row (canon.Wholes): a packet leaving the network is one row,
// not one per field.
func StateDiff(leaves []canon.Leaf, changes []canon.Change) []DiffRow {
	byPath := make(map[string]canon.Change, len(changes))
	var removed, wholes []canon.Change
	for _, c := range canon.Wholes(changes, leaves) {
		switch {
		case DiffKind(c.Kind) == Removed:
			removed = append(removed, c)
		case DiffKind(c.Kind) == Added && !isLeaf(c.Path, changes):
			wholes = append(wholes, c)
		default:
			byPath[c.Path] = c
		}
	}
	after := make([][]DiffRow, len(leaves)+1) // removed rows to put after leaf i-1 (0: first)
	for _, c := range removed {
		at := len(leaves)
		if len(leaves)*len(removed) <= 1<<22 { // else: at the end, to stay fast
			at = removedAt(leaves, c.Path)
		}
		after[at] = append(after[at], DiffRow{Path: c.Path, Kind: Removed, Old: c.Old})
	}
	rows := make([]DiffRow, 0, len(leaves)+len(removed))
	rows = append(rows, after[0]...)
	shown := make([]bool, len(wholes))
	for i, l := range leaves {
		if w := wholeOf(l.Path, wholes); w >= 0 {
			// A leaf of an element added whole: the element's row stands for it.
			if !shown[w] {
				shown[w] = true
				rows = append(rows, DiffRow{Path: wholes[w].Path, Kind: Added, New: wholes[w].New})
			}
			rows = append(rows, after[i+1]...)
			continue
		}
		r := DiffRow{Path: l.Path, New: l.Value}
		if c, ok := byPath[l.Path]; ok {
			r.Kind, r.Old = DiffKind(c.Kind), c.Old
		}
		rows = append(rows, r)
		rows = append(rows, after[i+1]...)
	}
	return rows
}

// isLeaf reports whether path is one of the step's own changes (not an element made of them).
func isLeaf(path string, changes []canon.Change) bool {
	for _, c := range changes {
		if c.Path == path {
			return true
		}
	}
	return false
}

// wholeOf is the element added whole that path lies in, or -1.
func wholeOf(path string, wholes []canon.Change) int {
	for i, w := range wholes {
		if canon.Path(path).Under(canon.Path(w.Path)) {
			return i
		}
	}
	return -1
}

// removedAt is where a removed path goes among the leaves (after leaf i-1): among the leaves it
// shares the longest prefix with (its siblings), after the last that comes before it in path
// order, or before the first when none does. So a removed element of a set, or a removed map
// entry, shows between its neighbours, as it stood before it went.
func removedAt(leaves []canon.Leaf, path string) int {
	best, first, at := -1, 0, -1
	for i, l := range leaves {
		n := commonPrefix(l.Path, path)
		if n > best {
			best, first, at = n, i, -1
		}
		if n == best && canon.Path(l.Path).Compare(canon.Path(path)) < 0 {
			at = i + 1
		}
	}
	if at < 0 {
		return first
	}
	return at
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// A DiffFilter is what the diff panel asks for.
type DiffFilter struct {
	Text          string `json:"text,omitempty"` // case-insensitive substring of path or value
	HideUnchanged bool   `json:"hideUnchanged,omitempty"`
	Limit         int    `json:"limit,omitempty"` // most rows sent; 0: DefaultDiffLimit
}

// DefaultDiffLimit bounds the rows of one diff answer: a page of a huge state stays responsive.
const DefaultDiffLimit = 2000

// A DiffView is the diff panel's content.
type DiffView struct {
	Rows    []DiffRow `json:"rows"`
	Changes int       `json:"changes"` // rows the step changed, before the filter
	Total   int       `json:"total"`   // rows before the filter
	Matched int       `json:"matched"` // rows the filter kept; more than len(Rows) when cut
}

// FilterDiff applies f to rows.
func FilterDiff(rows []DiffRow, f DiffFilter) DiffView {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultDiffLimit
	}
	text := strings.ToLower(f.Text)
	v := DiffView{Rows: []DiffRow{}, Total: len(rows)}
	for _, r := range rows {
		if r.Kind != "" {
			v.Changes++
		}
		if f.HideUnchanged && r.Kind == "" {
			continue
		}
		if text != "" && !strings.Contains(strings.ToLower(r.Path), text) &&
			!strings.Contains(strings.ToLower(r.New), text) && !strings.Contains(strings.ToLower(r.Old), text) {
			continue
		}
		v.Matched++
		if len(v.Rows) < limit {
			v.Rows = append(v.Rows, r)
		}
	}
	return v
}
