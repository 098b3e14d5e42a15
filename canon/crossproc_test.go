package canon_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/cmc-go/cmc/canon"
)

type goldenRoute struct {
	hops  uint8
	next  string
	valid bool
}

type goldenMsg struct {
	from, to int
	body     any
}

type goldenState struct {
	name   string
	routes map[string]*goldenRoute
	byHop  map[uint8][]string
	queue  []goldenMsg
	inbox  []goldenRoute `cmc:"set"`
	last   *goldenRoute
	scores [3]float64
	z      complex128
	any    any
}

// fixedState is the value whose hash is pinned in testdata/golden_hash.txt: change it only
// together with Version.
func fixedState() *goldenState {
	d := &goldenRoute{hops: 2, next: "C", valid: true}
	s := &goldenState{
		name: "B",
		routes: map[string]*goldenRoute{
			"A": {hops: 1, next: "A", valid: true},
			"C": {hops: 1, next: "C"},
			"D": d,
			"E": nil,
		},
		byHop:  map[uint8][]string{1: {"A", "C"}, 2: {"D"}, 255: nil},
		queue:  []goldenMsg{{1, 2, "hello"}, {2, 1, int64(-5)}, {3, 3, d}, {4, 4, nil}},
		inbox:  []goldenRoute{{hops: 3}, {hops: 1, next: "x"}, {hops: 1}},
		last:   d,
		scores: [3]float64{1.5, math.Copysign(0, -1), math.NaN()},
		z:      complex(1, -2),
		any:    map[string][]int{"k": {1, 2, 3}},
	}
	return s
}

func fixedHash(t *testing.T) string {
	return fmt.Sprintf("%016x", xxhash.Sum64(encode(t, fixedState())))
}

const childEnv = "CANON_CROSS_PROCESS_CHILD"

// Another process, with other addresses and another map seed, computes the same hash.
func TestCrossProcessHash(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		fmt.Printf("hash=%s\n", fixedHash(t))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrossProcessHash$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var child string
	for line := range strings.Lines(string(out)) {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "hash="); ok {
			child = h
		}
	}
	if child == "" {
		t.Fatalf("child printed no hash:\n%s", out)
	}
	if parent := fixedHash(t); parent != child {
		t.Fatalf("hash %s in this process, %s in another", parent, child)
	}
}

// The format does not drift silently: the bytes of a fixed value change only with Version.
func TestGoldenHash(t *testing.T) {
	got := fmt.Sprintf("version %d\nxxhash %s\n", canon.Version, fixedHash(t))
	file := filepath.Join("testdata", "golden_hash.txt")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) == got {
		return
	}
	var wantVersion int
	fmt.Sscanf(string(want), "version %d", &wantVersion)
	if wantVersion == int(canon.Version) {
		t.Fatalf("the canonical bytes changed but canon.Version did not: bump Version, then run with -update\nwant:\n%sgot:\n%s", want, got)
	}
	t.Fatalf("canon.Version changed: run with -update to pin the new hash\nwant:\n%sgot:\n%s", want, got)
}
