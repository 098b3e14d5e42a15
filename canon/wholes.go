package canon

import "strings"

// Wholes shows a step's changes as a reader wants them: an element of a slice, set or map that the
// step added or removed whole is one change, at the element's path, with its fields in one line
// ("{From: A, To: *, Msg.Type: RREQ}"), not one change per field. A packet leaving the network is
// one row, not eight. after is the state after the step. The changes keep their order; an
// element's change stands where its first field's stood. Stored changes stay per leaf (a trace's
// states are rebuilt from them); this is for display.
func Wholes(changes []Change, after []Leaf) []Change {
	added := make(map[string]bool, len(changes))
	for _, c := range changes {
		if c.Kind == "added" {
			added[c.Path] = true
		}
	}
	// kept: elements with a leaf after the step that the step did not add.
	kept := map[string]bool{}
	for _, l := range after {
		if !added[l.Path] {
			for _, e := range elements(Path(l.Path)) {
				kept[string(e)] = true
			}
		}
	}
	var out []Change
	at := map[string]int{} // element path and kind -> its change in out
	for _, c := range changes {
		root := whole(c, kept)
		if root == "" {
			out = append(out, c)
			continue
		}
		key := c.Kind + " " + string(root)
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, Change{Path: string(root), Kind: c.Kind})
		}
		field := strings.TrimPrefix(strings.TrimPrefix(c.Path, string(root)), ".")
		if field == "" {
			field = "="
		}
		v := &out[i].New
		if c.Kind == "removed" {
			v = &out[i].Old
		}
		*v = addField(*v, field, c.Old+c.New)
	}
	return out
}

// whole is the outermost element above c that c's kind of change added or removed whole, or "".
// An element was removed whole if no leaf under it is left; added whole if every leaf under it
// is new (a removed leaf's element is not in after, so kept decides both).
func whole(c Change, kept map[string]bool) Path {
	if c.Kind != "added" && c.Kind != "removed" {
		return ""
	}
	for _, e := range elements(Path(c.Path)) {
		if !kept[string(e)] && e != Path(c.Path) {
			return e
		}
	}
	return ""
}

// elements are the paths of the elements and entries p lies in, outermost first: for
// "net.Pending[3].Hear[0]", "net.Pending[3]" and "net.Pending[3].Hear[0]".
func elements(p Path) []Path {
	var out []Path
	var q Path
	for i, s := range p.Segments() {
		if i == 0 {
			q = Path(s)
		} else {
			q = q.Child(s)
		}
		if s.Keyed() {
			out = append(out, q)
		}
	}
	return out
}

// addField appends "field: value" to a one-line summary "{a: 1, b: 2}".
func addField(summary, field, value string) string {
	if field == "=" {
		return value
	}
	if summary == "" {
		return "{" + field + ": " + value + "}"
	}
	return strings.TrimSuffix(summary, "}") + ", " + field + ": " + value + "}"
}
