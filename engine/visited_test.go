package engine

import (
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestVisitedGrows adds enough hashes to grow the table several times, each grow giving the old
// table's memory back part by part, and checks that every hash added is still there and that
// hashes never added are not.
func TestVisitedGrows(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	v := newVisited(false)
	defer v.free()
	added := make([]uint64, 400_000) // the table starts at 1<<16 slots: three grows
	for i := range added {
		added[i] = r.Uint64() | 1 // odd
		if !v.add(added[i], nil) {
			t.Fatalf("hash %d of %d reported as seen before", i, len(added))
		}
	}
	if len(v.table) != 1<<20 {
		t.Fatalf("table has %d slots, want %d after three grows", len(v.table), 1<<20)
	}
	for i, h := range added {
		if !v.has(h, nil) || v.add(h, nil) || !v.seen(h) {
			t.Fatalf("hash %d of %d lost by a grow", i, len(added))
		}
	}
	for range 1000 {
		if h := r.Uint64() &^ 1; h != 0 && v.has(h, nil) { // even: never added
			t.Fatalf("hash %#x found but never added", h)
		}
	}
}

// TestReleaseGivesMemoryBack checks that releasing part of an off-heap slice keeps the rest, and on
// Linux zeroes the part and lowers the process's resident memory (/proc/self/statm).
func TestReleaseGivesMemoryBack(t *testing.T) {
	s := offHeap[uint64](8 << 20) // 64 MiB
	defer freeOffHeap(s)
	for i := range s {
		s[i] = uint64(i) + 1
	}
	before := residentPages(t)
	releaseOffHeap(s[1<<20 : 7<<20])
	after := residentPages(t)
	for _, i := range []int{0, 1<<20 - 1, 7 << 20, 8<<20 - 1} {
		if s[i] != uint64(i)+1 {
			t.Fatalf("slot %d outside the released part changed to %d", i, s[i])
		}
	}
	if runtime.GOOS != "linux" {
		return // releasing does nothing elsewhere (release_other.go)
	}
	for _, i := range []int{1 << 20, 4 << 20, 7<<20 - 1} {
		if s[i] != 0 {
			t.Fatalf("slot %d inside the released part reads %d, want 0", i, s[i])
		}
	}
	if freed := (before - after) * os.Getpagesize(); freed < 40<<20 {
		t.Fatalf("resident memory fell by %d bytes after releasing 48 MiB; want at least 40 MiB", freed)
	}
}

// residentPages is the process's resident set in pages, or 0 where /proc is missing.
func residentPages(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	n, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatalf("/proc/self/statm: %v", err)
	}
	return n
}
