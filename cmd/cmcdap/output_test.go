package main

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/service"
)

const unruly = "../../internal/coord/testdata/unruly"

// TestCheckShowsModelOutput: what a handler prints reaches stderr, prefixed, and a printed line
// that looks like a reply changes nothing.
func TestCheckShowsModelOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	code, out, errs := runCheckArgs(t, "Print", nil, service.RunSettings{Deadline: 1}, false, unruly)
	if code != 0 || !strings.Contains(out, "no violation") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and no violation", code, out, errs)
	}
	for _, want := range []string{"[model stdout] fmt says 2\n", "[model stdout] {\"done\":true}\n", "[model stderr] stderr says 2\n", " INFO slog says n=2\n"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
}

// TestCheckMemoryLimit: -memory parses sizes, and live data above it is a finding (exit 1).
func TestCheckMemoryLimit(t *testing.T) {
	var n int64
	m := memoryFlag{&n}
	for s, want := range map[string]int64{"64MiB": 64 << 20, "8GiB": 8 << 30, "2G": 2 << 30, "1048576": 1 << 20} {
		if err := m.Set(s); err != nil || n != want {
			t.Errorf("-memory %s: %d, %v; want %d", s, n, err, want)
		}
	}
	if err := m.Set("lots"); err == nil || err.Error() != "want a size such as 512MiB or 8GiB" {
		t.Errorf("-memory lots: %v", err)
	}
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	code, out, errs := runCheckArgs(t, "Hoard", nil, service.RunSettings{Deadline: 1, Memory: 64 << 20}, false, unruly)
	if code != 1 || !strings.Contains(out, "memory limit 64 MiB exceeded") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and the memory limit finding", code, out, errs)
	}
}
