package canon

import (
	"cmp"
	"strings"
)

// A Path names one part of a state as canon writes it (Leaf.Path, Change.Path, Object.Path): a
// root (a component's name), then fields (.f), elements and map entries ([3], [D], ["a b"], the
// key as rendered), and dereferences, which wrap what they dereference: "(*B.p).x". A **T field
// gives two: "(*(*S.pp))". This file is the one place that takes a path apart; the debugger's
// variables, the store's fold, the views and replay call it.
type Path string

// A Segment is one step of a path: a root or field name, an index or key in brackets (brackets
// and quotes inside a key matched), or "*" for a dereference.
type Segment string

// Deref is the segment of a dereference.
const Deref Segment = "*"

// Keyed reports whether s is an index or a map key: "[3]", "[D]".
func (s Segment) Keyed() bool { return strings.HasPrefix(string(s), "[") }

// Key is what is inside a keyed segment's brackets.
func (s Segment) Key() string {
	return strings.TrimSuffix(strings.TrimPrefix(string(s), "["), "]")
}

// Child is the path of s below p: "(*p)" for a dereference, "p[k]" for a key, "p.f" for a field,
// and s itself below the empty path (a root).
func (p Path) Child(s Segment) Path {
	switch {
	case p == "":
		return Path(s)
	case s == Deref:
		return "(*" + p + ")"
	case s.Keyed():
		return p + Path(s)
	}
	return p + "." + Path(s)
}

// Segments splits p: "(*B.p).x[D]" is B, p, *, x, [D]. What is not a path canon writes is kept
// as one segment, so joining the segments with Child always gives p back.
func (p Path) Segments() []Segment { return appendSegments(nil, string(p)) }

func appendSegments(out []Segment, p string) []Segment {
	if strings.HasPrefix(p, "(*") {
		end := closing(p)
		if end < 0 {
			return append(out, Segment(p))
		}
		out = append(appendSegments(out, p[2:end]), Deref)
		return appendRest(out, p[end+1:])
	}
	i := strings.IndexAny(p, ".[")
	if i < 0 {
		return append(out, Segment(p))
	}
	return appendRest(append(out, Segment(p[:i])), p[i:])
}

func appendRest(out []Segment, p string) []Segment {
	for len(p) > 0 {
		switch p[0] {
		case '.':
			i := strings.IndexAny(p[1:], ".[")
			if i < 0 {
				return append(out, Segment(p[1:]))
			}
			out = append(out, Segment(p[1:i+1]))
			p = p[i+1:]
		case '[':
			end := closing(p)
			if end < 0 {
				return append(out, Segment(p))
			}
			out = append(out, Segment(p[:end+1]))
			p = p[end+1:]
		default: // not a path canon writes: keep the rest as one name
			return append(out, Segment(p))
		}
	}
	return out
}

// closing returns the index of the bracket or parenthesis closing the one at p[0], skipping
// quoted strings, or -1.
func closing(p string) int {
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '"':
			for i++; i < len(p) && p[i] != '"'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// Root is the component p starts at: "A" for "A.routes[2]", for "(*A)" and for "(*(*A.pp))".
func (p Path) Root() string {
	s := string(p)
	for strings.HasPrefix(s, "(*") {
		s = s[2:]
	}
	if i := strings.IndexAny(s, ".[)"); i >= 0 {
		return s[:i]
	}
	return s
}

// Under reports whether p lies at or below q: q itself, a field, element or entry of it, or a
// dereference of any of these. Dereferences wrap a path, so "(*(*S.pp))" lies below "S.pp",
// below "(*S.pp)" and below "S".
func (p Path) Under(q Path) bool {
	s := string(p)
	for {
		if rest, ok := strings.CutPrefix(s, string(q)); ok && (rest == "" || strings.ContainsRune(".[)", rune(rest[0]))) {
			return true
		}
		var ok bool
		if s, ok = strings.CutPrefix(s, "(*"); !ok {
			return false
		}
	}
}

// Compare orders paths as text, except that runs of digits compare as numbers, so "x[9]" comes
// before "x[10]". Distinct paths never compare equal. The store keeps a state's leaves sorted by
// it: changing it changes how stored states are folded.
func (p Path) Compare(q Path) int {
	a, b := string(p), string(q)
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			da, db := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Compare(len(da), len(db)); c != 0 {
				return c
			}
			if c := strings.Compare(da, db); c != 0 {
				return c
			}
			if c := cmp.Compare(i-si, j-sj); c != 0 { // "01" after "1"
				return c
			}
			continue
		}
		if a[i] != b[j] {
			return cmp.Compare(a[i], b[j])
		}
		i++
		j++
	}
	return cmp.Compare(len(a)-i, len(b)-j)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
