package service

import (
	"fmt"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
)

// A Report is what a finished check found, for a front end to show where the user looks (the
// editor's notification and results view, the CLI's last lines): one shape for all of them.
type Report struct {
	Model       string  `json:"model"`
	States      int64   `json:"states"`
	Transitions int64   `json:"transitions"`
	Depth       int     `json:"depth"`
	Seconds     float64 `json:"seconds"`
	// Complete: every reachable state (within the model's bounds) was explored.
	Complete  bool `json:"complete"`
	Cancelled bool `json:"cancelled,omitempty"`
	// Violation is the first violation ("invariant NoLoop: ..."), "" when there was none; Steps
	// its trace's length and Trace the stored trace (0: not stored).
	Violation string `json:"violation,omitempty"`
	Steps     int    `json:"steps,omitempty"`
	Trace     int64  `json:"trace,omitempty"`
	// Known: Trace was stored before this check (the same violation along the same steps), by
	// run KnownRun.
	Known    bool  `json:"known,omitempty"`
	KnownRun int64 `json:"knownRun,omitempty"`
	// Before are the traces of the check (all its violations, with -all) that were stored before
	// it, found again along the same steps and not stored again.
	Before []int64 `json:"before,omitempty"`
	// Bookmark is the bookmark the check started from, and what its trace found then.
	Bookmark *BookmarkOrigin `json:"bookmark,omitempty"`
	// Comparison says, for a check from a bookmark, what the original trace found and what this
	// check found: "original: invariant NoLoop at step 13 (trace 7); now: no violation in
	// 3,306,004 states".
	Comparison string `json:"comparison,omitempty"`
	// Coverage is the line coverage of the user's code, when the check measured it
	// (Settings.Coverage): the lines of its files, as cmcdap coverage counts them.
	Coverage *LineCoverage `json:"coverage,omitempty"`
}

// LineCoverage is how many of the lines with a statement a check ran.
type LineCoverage struct {
	Covered int `json:"covered"`
	Lines   int `json:"lines"`
	Files   int `json:"files"`
}

// Percent is Covered of Lines, in percent.
func (c LineCoverage) Percent() float64 { return engine.Percent(c.Covered, c.Lines) }

// lineCoverage sums the lines of the files a check measured; nil when it measured none.
func lineCoverage(c *engine.Coverage) *LineCoverage {
	if c == nil || len(c.Files) == 0 {
		return nil
	}
	out := &LineCoverage{Files: len(c.Files)}
	for _, f := range c.Files {
		out.Covered += f.LinesRun
		out.Lines += f.Lines
	}
	return out
}

// A BookmarkOrigin is the bookmarked state a check started from.
type BookmarkOrigin struct {
	Name  string `json:"name"`
	Trace int64  `json:"trace"`
	Step  int    `json:"step"`
	// Violation is what the bookmarked trace ends in ("" for a walk), after Steps steps.
	Violation string `json:"violation,omitempty"`
	Steps     int    `json:"steps"`
}

// NewReport describes check c, stored as run runID with traces ids (Save's results), which took
// elapsed. It reads the bookmark the check started from and whether its trace was known.
func NewReport(db *store.Store, c *Check, res *engine.Result, runID int64, ids []int64, elapsed time.Duration) Report {
	r := Report{Model: c.Model, States: res.States, Transitions: res.Transitions, Depth: res.Depth,
		Seconds: elapsed.Seconds(), Complete: res.Complete, Cancelled: res.Cancelled, Coverage: lineCoverage(res.Coverage)}
	for _, id := range ids {
		if info, err := db.TraceInfo(id); err == nil && info.Run != runID {
			r.Before = append(r.Before, id)
		}
	}
	if len(res.Violations) > 0 {
		t := res.Violations[0]
		r.Violation, r.Steps = tracefmt.Violation(t.Violation), len(t.Steps)
		if len(ids) > 0 {
			r.Trace = ids[0]
			if info, err := db.TraceInfo(ids[0]); err == nil && info.Run != runID {
				r.Known, r.KnownRun = true, info.Run
			}
		}
	}
	if name := c.Settings.Bookmark; name != "" {
		if b, err := db.BookmarkByName(name); err == nil {
			o := &BookmarkOrigin{Name: b.Name, Trace: b.Trace, Step: b.Step}
			if info, err := db.TraceInfo(b.Trace); err == nil {
				o.Steps = info.Length
				if info.Kind != "" {
					o.Violation = tracefmt.Violation(&engine.Violation{Kind: info.Kind, Name: info.Name, Message: info.Message})
				}
			}
			r.Bookmark = o
			r.Comparison = comparison(o, r)
		}
	}
	return r
}

// comparison words what the bookmarked trace found and what the check from its state found.
func comparison(o *BookmarkOrigin, r Report) string {
	orig := fmt.Sprintf("original: %s at step %d (trace %d)", o.Violation, o.Steps, o.Trace)
	if o.Violation == "" {
		orig = fmt.Sprintf("original: no violation in %d steps (trace %d)", o.Steps, o.Trace)
	}
	var now string
	switch {
	case r.Violation == "" && r.Cancelled:
		now = fmt.Sprintf("cancelled after %s states, no violation so far", tracefmt.Thousands(r.States))
	case r.Violation == "" && r.Complete:
		now = fmt.Sprintf("no violation in %s states (complete)", tracefmt.Thousands(r.States))
	case r.Violation == "":
		now = fmt.Sprintf("no violation in %s states (not complete: bounded)", tracefmt.Thousands(r.States))
	case r.Known && r.Trace == o.Trace:
		now = "the same violation along the same steps (trace " + fmt.Sprint(r.Trace) + ")"
	case r.Known:
		now = fmt.Sprintf("%s at step %d, as trace %d found before", r.Violation, r.Steps, r.Trace)
	case r.Violation == o.Violation:
		now = fmt.Sprintf("the same violation at step %d (trace %d)", r.Steps, r.Trace)
	default:
		now = fmt.Sprintf("%s at step %d (trace %d)", r.Violation, r.Steps, r.Trace)
	}
	return orig + "; now: " + now
}
