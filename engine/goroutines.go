package engine

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/internal/stackdump"
)

// leaks finds goroutines a handler started that are still running after it returned. Such a
// goroutine is state the checker cannot see or restore, and it may change the model's values
// between transitions, so it is a finding ("goroutine-leak"). Counting goroutines costs a few
// nanoseconds per run; only when the count grew does it read a goroutine dump (which stops the
// world) and keep the goroutines the handler's own goroutine created from the model's code.
//
// That goroutine also runs the search, which may start goroutines of its own between handlers: a
// partition's NATS client starts some on its first publish, from the search's goroutine. They are
// not the handler's, so begin learns them whenever the count changed since the last check ended.
type leaks struct {
	reported map[int64]bool             // goroutines already reported, so -all does not report them again
	known    map[int64]bool             // created by this goroutine before the handler began
	after    int                        // the count when the last check ended
	user     func(stackdump.Frame) bool // model code; nil is stackdump.Frame.User
}

// begin returns the goroutine count before a handler runs, having learned the goroutines this
// goroutine started since the last check when the count moved in between.
func (l *leaks) begin() int {
	n := runtime.NumGoroutine()
	if n != l.after {
		me := stackdump.Current()
		l.known = map[int64]bool{}
		for _, g := range stackdump.Parse(stackdump.All()) {
			if g.Creator == me {
				l.known[g.ID] = true
			}
		}
	}
	return n
}

// check compares the goroutine count before the handler ran (begin's) with now.
func (l *leaks) check(before int, ev *cmc.Event) *Failure {
	if l.after = runtime.NumGoroutine(); l.after <= before {
		return nil
	}
	defer func() { l.after = runtime.NumGoroutine() }()
	// A goroutine that is finishing its work gets a moment to end.
	for i := 0; i < 20 && runtime.NumGoroutine() > before; i++ {
		runtime.Gosched()
		if i >= 10 {
			time.Sleep(100 * time.Microsecond)
		}
	}
	if runtime.NumGoroutine() <= before {
		return nil
	}
	user := l.user
	if user == nil {
		user = stackdump.Frame.User
	}
	me := stackdump.Current()
	var left []string
	var site string
	for _, g := range stackdump.Parse(stackdump.All()) {
		if g.Creator != me || g.CreatedBy == nil || !user(*g.CreatedBy) || l.reported[g.ID] || l.known[g.ID] {
			continue
		}
		if l.reported == nil {
			l.reported = map[int64]bool{}
		}
		l.reported[g.ID] = true
		if site == "" {
			site = g.CreatedBy.Site()
		}
		d := fmt.Sprintf("goroutine %d created at %s, %s", g.ID, g.CreatedBy.Site(), g.Blocked())
		if at := g.Where(1); at != "" {
			d += " " + at
		}
		left = append(left, d)
	}
	if len(left) == 0 {
		return nil
	}
	return &Failure{Kind: "goroutine-leak", Site: site, Message: fmt.Sprintf(
		"handler %s returned but left %d goroutine(s) running: %s; a transition must finish all its work (see docs/checkable-code.md)",
		ev.Label, len(left), strings.Join(left, "; "))}
}
