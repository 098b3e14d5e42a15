package dap

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/internal/service"
)

// Breakpoints on any line of the protocol code: a line that is not a handler or Choose site of
// the trace is looked up by running the trace under Delve with a breakpoint on it
// (service.ScanLines), once per line and trace. The breakpoint is pending meanwhile, then
// verified with the steps that run the line ("runs in step 12"), or not ("no step of this trace
// runs this line"). Continue and reverse continue stop at those steps inside the code: the step
// runs under Delve and stops on the line (inside.go), with its locals. A condition on such a
// line is a Go expression that Delve evaluates there.

// lineRuns are the steps that run each scanned line, for one trace.
type lineRuns struct {
	trace    int64
	runs     map[service.Line][]int
	scanning bool
	failed   string // why the last scan failed: lines then stay unverified with it
}

// codeLine is what a source breakpoint off the trace's sites knows of its line: whether the
// scan ran, and the steps.
func (s *Session) codeLine(b *sourceBP) (steps []int, known bool) {
	if s.lines.trace != s.tr.id {
		s.lines = lineRuns{trace: s.tr.id, runs: map[service.Line][]int{}}
	}
	steps, known = s.lines.runs[service.Line{Path: b.path, Line: b.line}]
	return steps, known
}

// verifyCodeLine verifies a source breakpoint that is not on a handler or Choose site.
func (s *Session) verifyCodeLine(b *sourceBP) {
	b.steps = nil
	if _, err := s.delve(); err != nil {
		b.message = "not a handler or Choose site of this trace (with Delve, any line: " + err.Error() + ")"
		return
	}
	steps, known := s.codeLine(b)
	switch {
	case !known && s.lines.failed != "":
		b.message = "cannot find the steps that run this line: " + s.lines.failed
	case !known:
		b.message = "pending: looking for the steps of this trace that run this line (under Delve)"
	case len(steps) == 0:
		b.message = "no step of this trace runs this line"
	default:
		b.verified, b.steps = true, steps
		b.message = "runs in " + stepList(steps)
	}
}

// stepList says which steps: "step 12", "steps 3, 4 and 9".
func stepList(steps []int) string {
	if len(steps) == 1 {
		return "step " + strconv.Itoa(steps[0])
	}
	var b strings.Builder
	b.WriteString("steps ")
	for i, n := range steps {
		switch {
		case i == len(steps)-1:
			b.WriteString(" and ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// delve is the dlv to run, when stepping into the code is on.
func (s *Session) delve() (string, error) {
	c := s.launch
	if c == nil || c.StepInto != "code" {
		return "", fmt.Errorf(`stepInto is "choices"`)
	}
	dlv, err := service.FindDelve(c.GoDebugger)
	if err == nil && c.Program == "" {
		err = fmt.Errorf(`stepping into the code needs "program", the package with the models`)
	}
	return dlv, err
}

// scanLines looks for the steps of the lines that pending breakpoints are on, unless a scan
// runs: when it ends the breakpoints are verified again (and a scan starts for lines set
// meanwhile).
func (s *Session) scanLines() {
	if s.tr == nil || s.lines.scanning || s.lines.failed != "" {
		return
	}
	var lines []service.Line
	for _, list := range s.bps.source {
		for _, b := range list {
			if _, known := s.codeLine(b); !known && strings.HasPrefix(b.message, "pending") {
				lines = append(lines, service.Line{Path: b.path, Line: b.line})
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	slices.SortFunc(lines, func(a, b service.Line) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	dlv, err := s.delve()
	if err != nil {
		return
	}
	c, t, id, b := s.launch, s.tr.t, s.tr.id, s.build
	s.lines.scanning = true
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		go func() {
			select {
			case <-s.done():
				cancel()
			case <-ctx.Done():
			}
		}()
		var runs map[service.Line][]int
		var err error
		if b == nil {
			b, err = service.Open(ctx, c.Cwd, c.Program)
		}
		if err == nil {
			runs, err = b.ScanLines(ctx, dlv, t, "", lines, s.modelOutput)
		}
		s.post(func() { s.scanned(id, lines, runs, err) })
	}()
}

// scanned takes a scan's result and verifies the breakpoints again.
func (s *Session) scanned(trace int64, lines []service.Line, runs map[service.Line][]int, err error) {
	if s.lines.trace != trace || s.tr == nil || s.tr.id != trace {
		return // another trace is open now
	}
	s.lines.scanning = false
	if err != nil {
		s.lines.failed = err.Error()
		s.log.Warn("scan failed", "err", err)
		s.output("important", "cmc: cannot find the steps that run the breakpoints' lines: "+err.Error()+"\n")
	}
	for _, l := range lines {
		if r, ok := runs[l]; ok {
			s.lines.runs[l] = r
		}
	}
	s.bps.verify(s)
	s.scanLines()
}
