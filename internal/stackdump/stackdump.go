// Package stackdump reads Go goroutine dumps (runtime.Stack with all set, or the dump a fatal
// error prints) so the worker and the coordinator can say where the model's own code was when a
// handler hung, crashed or left a goroutine running, instead of showing the runtime's frames.
package stackdump

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// A Goroutine is one goroutine of a dump.
type Goroutine struct {
	ID        int64
	Wait      string  // what the header says it is doing: "running", "chan receive", "sync.Mutex.Lock", ...
	Frames    []Frame // innermost first
	CreatedBy *Frame  // where the go statement was, if the dump says
	Creator   int64   // the goroutine that ran the go statement (0: not given)
}

// A Frame is one function call of a goroutine's stack.
type Frame struct {
	Func string // package path qualified, as the dump prints it
	File string
	Line int
}

// Site is the frame's file:line.
func (f Frame) Site() string { return f.File + ":" + strconv.Itoa(f.Line) }

// Short is the file's base name and line, for one-line messages.
func (f Frame) Short() string { return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line) }

// Parse reads a dump. Lines it does not understand (a fatal error's preamble, "runtime stack:")
// are skipped, so it takes a crashed process's whole stderr.
func Parse(dump string) []Goroutine {
	var gs []Goroutine
	var g *Goroutine
	lines := strings.Split(dump, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if id, wait, ok := header(l); ok {
			gs = append(gs, Goroutine{ID: id, Wait: wait})
			g = &gs[len(gs)-1]
			continue
		}
		if g == nil || l == "" || strings.HasPrefix(l, "\t") {
			if l == "" {
				g = nil
			}
			continue
		}
		// A function line, then its file line.
		fn, created := l, false
		if rest, ok := strings.CutPrefix(l, "created by "); ok {
			fn, created = rest, true
			if j := strings.Index(fn, " in goroutine "); j >= 0 {
				g.Creator, _ = strconv.ParseInt(fn[j+len(" in goroutine "):], 10, 64)
				fn = fn[:j]
			}
		} else if j := strings.LastIndexByte(fn, '('); j > 0 {
			fn = fn[:j]
		}
		f := Frame{Func: fn}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			i++
			f.File, f.Line = fileLine(lines[i])
		}
		if created {
			g.CreatedBy = &f
		} else {
			g.Frames = append(g.Frames, f)
		}
	}
	return gs
}

// header parses "goroutine 7 [chan receive, 2 minutes]:" (a crash may add "gp=... m=..." fields
// before the bracket).
func header(l string) (id int64, wait string, ok bool) {
	rest, ok := strings.CutPrefix(l, "goroutine ")
	if !ok || !strings.HasSuffix(rest, "]:") {
		return 0, "", false
	}
	num, _, _ := strings.Cut(rest, " ")
	id, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, "", false
	}
	open := strings.IndexByte(rest, '[')
	if open < 0 {
		return 0, "", false
	}
	wait = rest[open+1 : len(rest)-2]
	wait, _, _ = strings.Cut(wait, ",") // drop ", 2 minutes", ", locked to thread"
	return id, wait, true
}

// fileLine parses "\t/path/file.go:12 +0x1d".
func fileLine(l string) (string, int) {
	l = strings.TrimSpace(l)
	if j := strings.LastIndex(l, " +0x"); j >= 0 {
		l = l[:j]
	}
	j := strings.LastIndexByte(l, ':')
	if j < 0 {
		return l, 0
	}
	n, _ := strconv.Atoi(l[j+1:])
	return l[:j], n
}

// User reports whether the frame is the model's code: not the Go runtime or standard library, and
// not the checker's own packages (its examples and test data are models, so they count as user code).
func (f Frame) User() bool {
	if f.Func == "" || strings.HasPrefix(f.Func, "runtime.") || strings.HasPrefix(f.Func, "main.") {
		return false
	}
	// The process that calls this (a worker coord built, a test binary) was built on this machine,
	// so the build's root is where the standard library is; `go env GOROOT` would cost a process.
	//lint:ignore SA1019 see above
	if goroot := runtime.GOROOT(); goroot != "" && strings.HasPrefix(f.File, filepath.ToSlash(goroot)+"/src/") {
		return false
	}
	const cmc = "github.com/cmc-go/cmc"
	if f.Func == cmc || strings.HasPrefix(f.Func, cmc+".") || strings.HasPrefix(f.Func, cmc+"/") {
		return strings.Contains(f.Func, "/examples/") || strings.Contains(f.Func, "/testdata/")
	}
	return true
}

// UserFrames are the goroutine's frames that are the model's code, innermost first.
func (g *Goroutine) UserFrames() []Frame {
	var fs []Frame
	for _, f := range g.Frames {
		if f.User() {
			fs = append(fs, f)
		}
	}
	return fs
}

// Blocked says in words what the goroutine waits for, from its header: "blocked on channel
// (chan receive)", "blocked on mutex (sync.Mutex.Lock)", or "running" for a goroutine that was
// computing (in a loop, say).
func (g *Goroutine) Blocked() string {
	w := g.Wait
	switch {
	case w == "running" || w == "runnable" || w == "" || strings.HasPrefix(w, "preempted") || w == "syscall":
		return "running"
	case strings.HasPrefix(w, "chan ") || strings.HasPrefix(w, "select"):
		return "blocked on channel (" + w + ")"
	case strings.Contains(w, "Mutex") || strings.HasPrefix(w, "semacquire"):
		return "blocked on mutex (" + w + ")"
	case strings.Contains(w, "WaitGroup"), strings.Contains(w, "Cond"):
		return "blocked on " + w
	case w == "sleep":
		return "sleeping (time.Sleep)"
	case w == "IO wait":
		return "blocked on I/O (" + w + ")"
	}
	return "waiting (" + w + ")"
}

// Where says where the model's code of goroutine g is, innermost first: "at f.go:12 (pkg.f),
// called from g.go:30", or "" when none of its frames is the model's.
func (g *Goroutine) Where(max int) string {
	fs := g.UserFrames()
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	for i, f := range fs[:min(max, len(fs))] {
		if i == 0 {
			fmt.Fprintf(&b, "at %s (%s)", f.Site(), f.Func)
		} else {
			fmt.Fprintf(&b, ", called from %s", f.Site())
		}
	}
	return b.String()
}

// Find returns goroutine id of gs, or nil.
func Find(gs []Goroutine, id int64) *Goroutine {
	for i := range gs {
		if gs[i].ID == id {
			return &gs[i]
		}
	}
	return nil
}

// All returns a dump of every goroutine of this process.
func All() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// Current returns the id of the calling goroutine.
func Current() int64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	id, _, _ := header(strings.SplitN(string(buf[:n]), "\n", 2)[0])
	return id
}
