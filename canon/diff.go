package canon

// A Leaf is one scalar of a state, by path: what a diff compares.
type Leaf struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// A Change is one difference between two states, by path.
type Change struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // "added", "changed" or "removed"
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
}

// Leaves flattens a graph into its scalars, each under the path that first reaches it in canonical
// order. A reference reached by any other path is a leaf too ("&" and the object's path), so a
// change of aliasing shows up as a change.
func (g *Graph) Leaves() []Leaf {
	var out []Leaf
	var walk func(vals []Value, prefix string)
	object := func(id int, path string) {
		o := g.Objects[id-1]
		if len(o.Fields) == 0 {
			out = append(out, Leaf{Path: path, Value: "{}"})
		}
		walk(o.Fields, path)
	}
	walk = func(vals []Value, prefix string) {
		for _, v := range vals {
			p := join(prefix, v.Name)
			switch {
			case v.Ref != 0 && g.Objects[v.Ref-1].Path == p:
				object(v.Ref, p)
			case v.Ref != 0:
				out = append(out, Leaf{Path: p, Value: "&" + g.Objects[v.Ref-1].Path})
			case len(v.Fields) > 0:
				walk(v.Fields, p)
			default:
				out = append(out, Leaf{Path: p, Value: v.Scalar})
			}
		}
	}
	for _, o := range g.Objects {
		if o.Root != "" {
			object(o.ID, o.Root)
		}
	}
	return out
}

func join(prefix, name string) string { return string(Path(prefix).Child(Segment(name))) }

// Diff lists what changed from a to b: paths of b in order, each added or changed, then the paths
// only a had, removed.
func Diff(a, b []Leaf) []Change {
	old := make(map[string]string, len(a))
	for _, l := range a {
		old[l.Path] = l.Value
	}
	var out []Change
	seen := make(map[string]bool, len(b))
	for _, l := range b {
		seen[l.Path] = true
		v, ok := old[l.Path]
		switch {
		case !ok:
			out = append(out, Change{Path: l.Path, Kind: "added", New: l.Value})
		case v != l.Value:
			out = append(out, Change{Path: l.Path, Kind: "changed", Old: v, New: l.Value})
		}
	}
	for _, l := range a {
		if !seen[l.Path] {
			out = append(out, Change{Path: l.Path, Kind: "removed", Old: l.Value})
		}
	}
	return out
}

// Mark flags the objects a change touched: those whose path is a prefix of a changed path.
func (g *Graph) Mark(changes []Change) {
	for i := range g.Objects {
		o := &g.Objects[i]
		p := o.Path
		if o.Root != "" {
			p = o.Root
		}
		for _, c := range changes {
			if under(c.Path, p) {
				o.Changed = true
				break
			}
		}
	}
}

// under reports whether path lies at or below the object at p (see Path.Under).
func under(path, p string) bool { return Path(path).Under(Path(p)) }
