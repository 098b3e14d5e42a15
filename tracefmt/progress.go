package tracefmt

import (
	"fmt"
	"strings"
	"time"

	"github.com/cmc-go/cmc/engine"
)

// Progress is the line a running check reports: cmcdap check prints it on stderr and the DAP
// session sends it as a progressUpdate, so both say the same in the same words, e.g.
// "12,345 states · 6,789 states/s · depth 7 · frontier 1,234 · partitions 6,100/6,245 (max/mean 1.01)".
// elapsed is the time since the check started, for the rate. The frontier is left out when it
// is empty (a finished search); the partitions when the search is not partitioned; a swarm's
// members done when the search is not a swarm over processes.
func Progress(p engine.Progress, elapsed time.Duration) string {
	secs := max(elapsed.Seconds(), 1e-3)
	var b strings.Builder
	fmt.Fprintf(&b, "%s states · %s states/s · depth %d", Thousands(p.States), Thousands(int64(float64(p.States)/secs)), p.Depth)
	if p.Frontier > 0 {
		b.WriteString(" · frontier " + Thousands(int64(p.Frontier)))
	}
	b.WriteString(Guidance(p))
	if len(p.Partitions) > 1 {
		list, ratio := Shares(p.Partitions)
		fmt.Fprintf(&b, " · partitions %s (max/mean %.2f)", list, ratio)
	}
	if p.Members > 0 {
		fmt.Fprintf(&b, " · members %d/%d done", p.MembersDone, p.Members)
	}
	return b.String()
}

// Shares lists the states each partition of a partitioned search owns ("4,366/4,466") and says
// how far the largest is over the mean (1.00 is even; N is all in one of N partitions).
func Shares(owned []int64) (string, float64) {
	var sum, most int64
	parts := make([]string, len(owned))
	for i, n := range owned {
		sum += n
		most = max(most, n)
		parts[i] = Thousands(n)
	}
	ratio := 0.0
	if sum > 0 {
		ratio = float64(most) * float64(len(owned)) / float64(sum)
	}
	return strings.Join(parts, "/"), ratio
}
