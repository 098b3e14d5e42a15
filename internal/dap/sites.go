package dap

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"

	"github.com/cmc-go/cmc/engine"
)

// Sites are the source lines a trace touches: the handler of each step and each Choose call.
// Source breakpoints are verified against them, and gotoTargets lists the steps at a line.
//
// A trace records its sites as the worker was built (another checkout, another machine); the
// editor names its own files. sourceFiles decides once, in Go, which editor file a recorded file
// is, and every consumer uses that decision: breakpoint verification, gotoTargets, stack frames'
// sources and the cmc/choices hints, which the extension compares by plain string equality.

type siteKind uint8

const (
	handlerSite siteKind = 1 << iota
	chooseSite
)

// A siteIndex maps file and line to what runs there.
type siteIndex struct {
	lines  map[string]map[int]siteKind // file as recorded -> line -> kinds
	byBase map[string][]string         // base name -> recorded files, in trace order
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

// sourceFiles resolves recorded files to the editor's paths. A recorded file is, in order:
//   - itself, when the editor named it or it exists on this machine;
//   - else the editor path or launch-directory file that shares the longest tail of path
//     elements with it: at least the directory and the file name (aodv/router.go), or only
//     the file name inside the launched package's own directory;
//   - else itself (a relative recorded file that matches a candidate whole counts, too).
//
// Candidates are the paths the client sent (setBreakpoints, gotoTargets) and files under the
// launch's directories (cwd, the package's directory, its module root). Decisions are kept until
// the candidates change.
type sourceFiles struct {
	sent  []string          // cleaned paths the client sent, first seen first
	roots []launchRoot      // directories files are looked for in
	memo  map[string]string // recorded file -> editor path
	// workspace is what sites shown as text are relative to: the launch's cwd, else the module
	// root, else the package's directory.
	workspace string
}

// A launchRoot is a directory of the launch and the path elements a file under it must share
// with a recorded file.
type launchRoot struct {
	dir  string
	tail int
}

// minTail is the path elements (directory and file name) a candidate must share with a recorded
// file outside the launched package's directory: a file name alone (main.go) says too little.
const minTail = 2

// setRoots sets the launch's directories: cwd, and the package's directory and module root
// when the launch built one.
func (f *sourceFiles) setRoots(cwd, pkgDir, module string) {
	f.workspace = cmp.Or(cwd, module, pkgDir)
	f.roots = f.roots[:0]
	if pkgDir != "" {
		f.roots = append(f.roots, launchRoot{pkgDir, 1})
	}
	for _, d := range []string{module, cwd} {
		if d != "" {
			f.roots = append(f.roots, launchRoot{d, minTail})
		}
	}
	f.memo = nil
}

// saw records a path the client sent and reports whether it was new (decisions may change).
func (f *sourceFiles) saw(path string) bool {
	if path == "" {
		return false
	}
	path = filepath.Clean(path)
	for _, p := range f.sent {
		if p == path {
			return false
		}
	}
	f.sent = append(f.sent, path)
	f.memo = nil
	return true
}

// editorPath is the editor's path of a recorded file.
func (f *sourceFiles) editorPath(recorded string) string {
	if p, ok := f.memo[recorded]; ok {
		return p
	}
	p := f.resolve(recorded)
	if f.memo == nil {
		f.memo = map[string]string{}
	}
	f.memo[recorded] = p
	return p
}

func (f *sourceFiles) resolve(recorded string) string {
	clean := filepath.Clean(recorded)
	elems := pathElems(clean)
	if len(elems) == 0 {
		return recorded
	}
	abs := filepath.IsAbs(clean)
	for _, p := range f.sent {
		if p == clean {
			return p
		}
	}
	if abs && exists(clean) {
		return clean
	}
	best, bestN := recorded, 0
	enough := func(n, need int) bool { return n >= need || !abs && n == len(elems) }
	for _, p := range f.sent {
		if n := commonSuffix(elems, pathElems(p)); n > bestN && enough(n, minTail) {
			best, bestN = p, n
		}
	}
	for _, r := range f.roots {
		for n := len(elems); n > bestN && enough(n, r.tail); n-- {
			if p := filepath.Join(r.dir, filepath.Join(elems[len(elems)-n:]...)); exists(p) {
				best, bestN = p, n
				break
			}
		}
	}
	return best
}

func exists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

// pathElems splits a path into its elements, either separator.
func pathElems(p string) []string {
	var out []string
	for _, e := range strings.Split(filepath.ToSlash(p), "/") {
		if e != "" && e != "." {
			out = append(out, e)
		}
	}
	return out
}

// commonSuffix counts the trailing path elements a and b share.
func commonSuffix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// recordedFile returns the loaded trace's recorded file that is the editor's path, or "".
func (s *Session) recordedFile(path string) string {
	path = filepath.Clean(path)
	for _, f := range s.tr.sites.byBase[filepath.Base(path)] {
		if s.files.editorPath(f) == path {
			return f
		}
	}
	return ""
}

// siteKind says what the trace runs at a line of the editor's file.
func (s *Session) siteKind(path string, line int) siteKind {
	f := s.recordedFile(path)
	if f == "" {
		return 0
	}
	return s.tr.sites.lines[f][line]
}

// atLine reports whether a recorded site is at the line of the editor's file.
func (s *Session) atLine(site, path string, line int) bool {
	at, ok := engine.ParseSite(site)
	return ok && at.Line == line && s.files.editorPath(at.File) == filepath.Clean(path)
}

// siteText is a recorded site as the user reads it: the editor's file, relative to the workspace
// (engine.RelSite), never an absolute path. Source.path fields keep the editor's absolute path.
func (s *Session) siteText(site string) string {
	if at, ok := s.sourceLine(site); ok {
		site = at.String()
	}
	return engine.RelSite(site, s.files.workspace)
}

// sourceLine is a recorded site as the editor names it.
func (s *Session) sourceLine(site string) (engine.SourceLine, bool) {
	at, ok := engine.ParseSite(site)
	if ok {
		at.File = s.files.editorPath(at.File)
	}
	return at, ok
}
