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
type leaks struct {
	reported map[int64]bool // goroutines already reported, so -all does not report them again
}

// check compares the goroutine count before the handler ran with now.
func (l *leaks) check(before int, ev *cmc.Event) *Failure {
	if runtime.NumGoroutine() <= before {
		return nil
	}
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
	me := stackdump.Current()
	var left []string
	var site string
	for _, g := range stackdump.Parse(stackdump.All()) {
		if g.Creator != me || g.CreatedBy == nil || !g.CreatedBy.User() || l.reported[g.ID] {
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
