package engine

import (
	"path/filepath"
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

// RelSite renders a site for people: its file relative to root (a workspace or module directory)
// when it lies under root, else its directory and file name (ShortSite). It never returns an
// absolute path, so nothing shown or exported names a directory of this machine; the debugger
// keeps absolute paths only where the editor needs them (a DAP Source.path).
func RelSite(site, root string) string {
	f := strings.ReplaceAll(site, `\`, "/") // Go records sites with slashes; a Windows path may come from elsewhere
	if root != "" {
		r := strings.TrimSuffix(strings.ReplaceAll(filepath.Clean(root), `\`, "/"), "/")
		if rest, ok := strings.CutPrefix(f, r+"/"); ok && rest != "" {
			return rest
		}
	}
	if !absolute(f) {
		return site
	}
	return ShortSite(f)
}

// ShortSite renders a site as its directory and file name and line (aodv/route.go:88): enough to
// find it, and the same on every checkout.
func ShortSite(site string) string {
	i := strings.LastIndexByte(site, '/')
	if i < 0 {
		return site
	}
	if j := strings.LastIndexByte(site[:i], '/'); j >= 0 {
		return site[j+1:]
	}
	return site
}

// absolute reports whether a slash-separated file is absolute here or on another system (a trace
// recorded on Windows read on Linux, or the reverse).
func absolute(f string) bool {
	return strings.HasPrefix(f, "/") || len(f) >= 3 && f[1] == ':' && f[2] == '/' || filepath.IsAbs(filepath.FromSlash(f))
}
