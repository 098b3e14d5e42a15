package dap

import (
	"path/filepath"
	"strings"

	"github.com/cmc-go/cmc/engine"
)

// Sites are the source lines a trace touches: the handler of each step and each Choose call.
// Source breakpoints are verified against them, and gotoTargets lists the steps at a line.

type siteKind uint8

const (
	handlerSite siteKind = 1 << iota
	chooseSite
)

// A siteIndex maps file and line to what runs there.
type siteIndex struct {
	lines  map[string]map[int]siteKind // file as recorded -> line -> kinds
	byBase map[string][]string         // base name -> recorded files
}

func indexSites(t *engine.Trace) siteIndex {
	x := siteIndex{lines: map[string]map[int]siteKind{}, byBase: map[string][]string{}}
	for i := range t.Steps {
		st := &t.Steps[i]
		x.add(st.Site, handlerSite)
		for _, c := range st.Choices {
			x.add(c.Site, chooseSite)
		}
	}
	return x
}

func (x siteIndex) add(site string, k siteKind) {
	at, ok := engine.ParseSite(site)
	if !ok {
		return
	}
	file, line := at.File, at.Line
	m := x.lines[file]
	if m == nil {
		m = map[int]siteKind{}
		x.lines[file] = m
		b := filepath.Base(file)
		x.byBase[b] = append(x.byBase[b], file)
	}
	m[line] |= k
}

// file returns the recorded file the client's path names: the same path, or else the recorded
// file with the longest common suffix of path elements (the trace may come from another
// checkout of the same code).
func (x siteIndex) file(path string) string {
	path = filepath.Clean(path)
	if _, ok := x.lines[path]; ok {
		return path
	}
	best, bestN := "", 0
	for _, f := range x.byBase[filepath.Base(path)] {
		if n := commonSuffix(f, path); n > bestN {
			best, bestN = f, n
		}
	}
	return best
}

// kind says what the trace runs at a line of the client's file.
func (x siteIndex) kind(path string, line int) siteKind {
	f := x.file(path)
	if f == "" {
		return 0
	}
	return x.lines[f][line]
}

// commonSuffix counts the trailing path elements a and b share.
func commonSuffix(a, b string) int {
	as, bs := strings.Split(filepath.ToSlash(a), "/"), strings.Split(filepath.ToSlash(b), "/")
	n := 0
	for n < len(as) && n < len(bs) && as[len(as)-1-n] == bs[len(bs)-1-n] {
		n++
	}
	return n
}

// atLine reports whether a recorded site is at the line of the client's file.
func (x siteIndex) atLine(site, path string, line int) bool {
	at, ok := engine.ParseSite(site)
	return ok && at.Line == line && at.File == x.file(path)
}
