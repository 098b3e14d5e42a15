package service

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc/engine"
)

// TestWritePartitions: a partitioned check's summary says how the states spread and what the
// partitions exchanged per state; a check of one process says nothing of partitions.
func TestWritePartitions(t *testing.T) {
	var b strings.Builder
	WritePartitions(&b, &engine.Result{States: 4466, Partitions: []engine.PartitionFigures{{States: 2000, Bytes: 100000}, {States: 2466, Bytes: 24}}})
	if got, want := b.String(), "2 partitions owned 2,000/2,466 states (max/mean 1.10); they exchanged 97 KiB (22 bytes a state)\n"; got != want {
		t.Errorf("summary:\n got %q\nwant %q", got, want)
	}
	b.Reset()
	WritePartitions(&b, &engine.Result{States: 4})
	if b.Len() != 0 {
		t.Errorf("one process: %q", b.String())
	}
}
