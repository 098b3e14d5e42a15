package canon

import (
	"cmp"
	"slices"
	"strings"
	"unsafe"
)

// The sharing check: every object and backing array a capture meets is a span of memory, and no
// two may overlap, in one component (then it is encoded again in array mode, arrays.go) or across
// components (an Error naming both paths).

type span struct {
	start, end uintptr
	comp       int // the component whose capture recorded it
}

// sharedInside marks the components whose own memory overlaps (slices sharing a backing array):
// they are encoded again in array mode.
type sharedInside []bool

func (sharedInside) Error() string { return "memory shared inside a component" }

// overlaps checks that no two captured objects share memory. Sharing inside components that are
// not yet in array mode is a sharedInside (encode them again in array mode); any other is an
// error, whose path the tracking run finds.
func overlaps(spans []span, n int, arrays sharedInside) error {
	var inside sharedInside
	if len(spans) <= 8 {
		// A capture of a process or two has a handful of spans: comparing every pair costs less
		// than sorting them.
		for i := 1; i < len(spans); i++ {
			s := &spans[i]
			for j := range i {
				if o := &spans[j]; s.start < o.end && o.start < s.end && !inside.mark(s.comp, o.comp, n, arrays) {
					return &Error{Reason: "interior pointer"}
				}
			}
		}
	} else {
		sortSpans(spans)
		var end uintptr
		owner := -1
		for i := range spans {
			s := &spans[i]
			if s.start < end && !inside.mark(s.comp, owner, n, arrays) {
				return &Error{Reason: "interior pointer"}
			}
			if s.end > end {
				end, owner = s.end, s.comp
			}
		}
	}
	if inside != nil {
		return inside
	}
	return nil
}

// mark judges memory that components a and b share: if they are one component not yet in array
// mode, it marks it and reports true; else the sharing is an error.
func (inside *sharedInside) mark(a, b, n int, arrays sharedInside) bool {
	if a != b || (a < len(arrays) && arrays[a]) {
		return false
	}
	if *inside == nil {
		*inside = make(sharedInside, n)
		copy(*inside, arrays)
	}
	(*inside)[a] = true
	return true
}

// sortSpans sorts spans by their start. A capture has a few dozen, and insertion sort with the
// comparison inline sorts them in a third of the instructions slices.SortFunc takes.
func sortSpans(spans []span) {
	if len(spans) > 64 {
		slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
		return
	}
	for i := 1; i < len(spans); i++ {
		s, j := spans[i], i
		for ; j > 0 && spans[j-1].start > s.start; j-- {
			spans[j] = spans[j-1]
		}
		spans[j] = s
	}
}

// addSpan records memory an object owns. While tracking, an overlap fails at once, so the error
// names the second path that reached the memory.
func (e *encoder) addSpan(ptr unsafe.Pointer, size uintptr) {
	start := uintptr(ptr)
	s := span{start: start, end: start + size, comp: e.comp}
	if e.tracking {
		for i, o := range e.spans {
			if s.start < o.end && o.start < s.end {
				e.fail("this value shares memory with %s (a pointer into the middle of a struct or array, or two slices sharing a backing array within their capacity): canonical bytes cannot restore such sharing; copy the value (slices.Clone), or refer to it by index", e.spanPaths[i])
			}
		}
		e.spanPaths = append(e.spanPaths, strings.Join(e.path, ""))
	}
	e.spans = append(e.spans, s)
}
