package canon

import (
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
// error, whose path the tracking run finds. tmp is room for sorting.
func overlaps(spans []span, n int, arrays sharedInside, tmp *[]span) error {
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
		sortSpans(spans, tmp)
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

// sortSpans sorts spans by their start, with tmp as room. A capture of a large component has a
// few dozen to a few hundred (etcd raft: mostly 33-64): runs of sortRun sorted by insertion, then
// merged, the comparisons inline. Insertion sort alone up to 64 spans and slices.SortFunc above
// took a tenth of an etcd raft search's instructions; this takes 3.4% fewer of the whole search's
// (cachegrind, BenchmarkCheckPrefix in examples/etcdraft: 7.215 G to 6.969 G; runs of 8: 7.023 G,
// of 24: 6.971 G).
func sortSpans(spans []span, tmp *[]span) {
	n := len(spans)
	for lo := 0; lo < n; lo += sortRun {
		part := spans[lo:min(lo+sortRun, n)]
		for i := 1; i < len(part); i++ {
			s, j := part[i], i
			for ; j > 0 && part[j-1].start > s.start; j-- {
				part[j] = part[j-1]
			}
			part[j] = s
		}
	}
	if n <= sortRun {
		return
	}
	if cap(*tmp) < n {
		*tmp = make([]span, n)
	}
	src, dst := spans, (*tmp)[:n]
	for width := sortRun; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			mergeRuns(dst[lo:hi], src[lo:mid], src[mid:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &spans[0] {
		copy(spans, src)
	}
}

// sortRun is how many spans insertion sort puts in order before merging takes over.
const sortRun = 16

// mergeRuns merges a and b, each in order, into dst.
func mergeRuns(dst, a, b []span) {
	if len(a) == 0 || len(b) == 0 || a[len(a)-1].start <= b[0].start {
		copy(dst[copy(dst, a):], b) // already in order, as the spans of one object walk often are
		return
	}
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j].start < a[i].start {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// addSpan records memory an object owns. While tracking, an overlap fails at once, so the error
// names the second path that reached the memory; not one inside a component in plain mode, which
// array mode captures (the error being tracked is another).
func (e *encoder) addSpan(ptr unsafe.Pointer, size uintptr) {
	start := uintptr(ptr)
	s := span{start: start, end: start + size, comp: e.comp}
	if e.tracking {
		for i, o := range e.spans {
			if s.start < o.end && o.start < s.end && (o.comp != s.comp || e.arrayMode) {
				e.fail("this value shares memory with %s (a pointer into the middle of a struct or array, or two slices sharing a backing array within their capacity): canonical bytes cannot restore such sharing; copy the value (slices.Clone), or refer to it by index", e.spanPaths[i])
			}
		}
		e.spanPaths = append(e.spanPaths, strings.Join(e.path, ""))
	}
	e.spans = append(e.spans, s)
}
