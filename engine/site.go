package engine

import (
	"strconv"
	"strings"
)

// A SourceLine is a site: the line of the user's source where a handler or a Choose call ran. A
// trace records it as "file:line" (Step.Site, Choice.Site, Violation.Site; the function Site
// writes it), and ParseSite is the one reader of that form, so the debugger's breakpoints, stack
// frames and inline values agree on where a site is.
type SourceLine struct {
	File string `json:"file"`
	Line int    `json:"line"` // 1-based
}

// ParseSite reads "file:line", allowing a column after the line ("file:line:col", ignored) and
// colons in the file (a Windows drive). ok is false when s names no line.
func ParseSite(s string) (site SourceLine, ok bool) {
	file, line, ok := cutNumber(s)
	if !ok {
		return SourceLine{}, false
	}
	if f, l, ok := cutNumber(file); ok { // file:line:col
		file, line = f, l
	}
	if file == "" {
		return SourceLine{}, false
	}
	return SourceLine{File: file, Line: line}, true
}

// cutNumber splits "rest:N" into rest and N.
func cutNumber(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 0 || s[i+1] == '+' || s[i+1] == '-' {
		return s, 0, false
	}
	return s[:i], n, true
}

func (s SourceLine) String() string { return s.File + ":" + strconv.Itoa(s.Line) }
