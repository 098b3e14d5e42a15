package tracefmt

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cmc-go/cmc/engine"
)

// Exercised is what a run exercised: how often each event ran, how many states it expanded,
// and, when measured, the coverage of the user's code.
type Exercised struct {
	Transitions int64
	Expanded    int64
	Events      []engine.EventRuns
	Coverage    *engine.Coverage // nil: not measured
	Root        string           // files are shown relative to it (engine.RelSite)
}

// WriteExercised prints e: the coverage by file and by handler, its growth, the events never run
// and the branching factor. check -cover and cmcdap coverage print it alike.
func WriteExercised(w io.Writer, e Exercised) {
	if c := e.Coverage; c != nil {
		fmt.Fprintf(w, "coverage of the user's code: %s of statements (%s of %s), in %d files\n",
			pct(c.Covered, c.Statements), Thousands(int64(c.Covered)), Thousands(int64(c.Statements)), len(c.Files))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range c.Files {
			fmt.Fprintf(tw, "  %s\t%s\t(%d/%d)\tlines %d/%d\n", engine.RelSite(f.File, e.Root), pct(f.Covered, f.Statements), f.Covered, f.Statements, f.LinesRun, f.Lines)
		}
		tw.Flush()
		if len(c.Handlers) > 0 {
			fmt.Fprintln(w, "handlers:")
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, h := range c.Handlers {
				fmt.Fprintf(tw, "  %s\t%s-%d\t%s\t(%d/%d)\t%s runs\n", h.Event, engine.RelSite(fmt.Sprintf("%s:%d", h.File, h.FirstLine), e.Root), h.LastLine,
					pct(h.Covered, h.Statements), h.Covered, h.Statements, Thousands(h.Runs))
			}
			tw.Flush()
		}
		if len(c.Growth) > 0 {
			var pts []string
			for _, p := range c.Growth {
				pts = append(pts, fmt.Sprintf("%s: %d", Thousands(p.Transitions), p.Covered))
			}
			fmt.Fprintf(w, "growth (transitions: statements covered): %s\n", strings.Join(pts, ", "))
		}
	} else if len(e.Events) > 0 {
		fmt.Fprintln(w, "coverage of the user's code: not measured (check with -cover)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, ev := range e.Events {
			fmt.Fprintf(tw, "  %s\t%s runs\n", ev.Event, Thousands(ev.Runs))
		}
		tw.Flush()
	}
	var never []string
	for _, ev := range e.Events {
		if ev.Runs == 0 {
			never = append(never, ev.Event)
		}
	}
	if len(never) > 0 {
		fmt.Fprintf(w, "events never run: %s\n", strings.Join(never, ", "))
	}
	if e.Expanded > 0 {
		r := engine.Result{Transitions: e.Transitions, Expanded: e.Expanded}
		fmt.Fprintf(w, "branching: %.2f transitions per expanded state (%s expanded)\n", r.Branching(), Thousands(e.Expanded))
	}
}

func pct(covered, statements int) string {
	return fmt.Sprintf("%.1f%%", engine.Percent(covered, statements))
}
