package coord

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Output receives one line the model's code wrote to the worker's stdout or stderr (stream is
// "stdout" or "stderr"), without its newline. The line is the user's, never a reply.
type Output func(stream, line string)

// Prefixed writes each line to w as "[model stdout] line": how the command line shows a model's
// output, on its stderr, apart from the check's own output.
func Prefixed(w io.Writer) Output {
	var mu sync.Mutex
	return func(stream, line string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "[model %s] %s\n", stream, line)
	}
}

// MaxOutputLines is how many lines of the model's output one request shows; a model that prints
// in every handler run of a search would otherwise flood the console. The rest are counted.
const MaxOutputLines = 100

// maxLineBytes cuts a line without a newline, so a model cannot make the coordinator buffer
// without bound.
const maxLineBytes = 4 << 10

// output splits the worker's stdout and stderr into lines and passes at most MaxOutputLines of
// them per request to the sink.
type output struct {
	mu         sync.Mutex
	sink       Output
	shown      int
	suppressed int
}

// begin starts a request's quota, first saying how many lines the last one suppressed.
func (o *output) begin() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
	o.shown = 0
}

// flush says how many lines were suppressed since the last begin, if any.
func (o *output) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
}

func (o *output) flushLocked() {
	if o.suppressed > 0 {
		o.sink("stderr", fmt.Sprintf("... (%d more lines suppressed)", o.suppressed))
		o.suppressed = 0
	}
}

func (o *output) line(stream, l string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.shown >= MaxOutputLines {
		o.suppressed++
		return
	}
	o.shown++
	o.sink(stream, l)
}

// stream is the io.Writer for one of the worker's output streams.
type stream struct {
	o    *output
	name string
	buf  []byte
	// dying: the Go runtime has started printing a fatal error to stderr. That report becomes
	// the finding (most of it also arrives on the crash descriptor), so it is not shown as model
	// output; its first lines are kept for the finding's message.
	dying bool
	fatal []string
}

func (s *stream) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			if len(s.buf) > maxLineBytes {
				s.emit(string(s.buf[:maxLineBytes]) + "…")
				s.buf = s.buf[:0]
			}
			return len(p), nil
		}
		s.emit(strings.TrimSuffix(string(s.buf[:i]), "\r"))
		s.buf = s.buf[i+1:]
	}
}

// close passes on a last line without a newline.
func (s *stream) close() {
	if len(s.buf) > 0 {
		s.emit(string(s.buf))
		s.buf = nil
	}
}

func (s *stream) emit(l string) {
	if s.name == "stderr" && (strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "runtime: goroutine stack exceeds")) {
		s.dying = true
	}
	if s.dying {
		if len(s.fatal) < 20 {
			s.fatal = append(s.fatal, l)
		}
		return
	}
	s.o.line(s.name, l)
}
