package engine

import "testing"

// A level reads back in order what was pushed, across blocks in its file and the block still in
// memory, keeps two blocks in memory whatever its length, and is reused after reset.
func TestLevel(t *testing.T) {
	l := newLevel(3)
	defer l.free()
	for round, n := range []int{3*levelBlock + 17, levelBlock - 1, 2 * levelBlock} {
		l.reset()
		for i := range n {
			l.push(int32(i), round, State{uint32(i), uint32(2 * i), uint32(round)})
		}
		if l.len() != n {
			t.Fatalf("round %d: len %d, want %d", round, l.len(), n)
		}
		if want := int64(n/levelBlock) * l.blockBytes(); l.spilled() != want {
			t.Errorf("round %d: %d bytes in the file, want %d", round, l.spilled(), want)
		}
		for i := range n {
			idx, depth, s, err := l.at(i)
			if err != nil {
				t.Fatal(err)
			}
			if idx != int32(i) || depth != round || len(s) != 3 || s[0] != uint32(i) || s[1] != uint32(2*i) || s[2] != uint32(round) {
				t.Fatalf("round %d: at(%d) = %d, %d, %v", round, i, idx, depth, s)
			}
		}
		if max := 2 * int64(levelBlock) * (8 + 4*3); l.bytes() > 2*max {
			t.Errorf("round %d: %d bytes in memory, want about two blocks (%d)", round, l.bytes(), max)
		}
	}
}

// Without a usable temporary directory a level stays in memory and still reads back.
func TestLevelWithoutFile(t *testing.T) {
	t.Setenv("TMPDIR", "/nonexistent/cmc-no-such-dir")
	l := newLevel(1)
	defer l.free()
	n := 2*levelBlock + 3
	for i := range n {
		l.push(int32(i), 1, State{uint32(i)})
	}
	if l.spilled() != 0 {
		t.Fatalf("%d bytes spilled without a temporary directory", l.spilled())
	}
	for i := range n {
		if idx, _, s, err := l.at(i); err != nil || idx != int32(i) || s[0] != uint32(i) {
			t.Fatalf("at(%d) = %d, %v, %v", i, idx, s, err)
		}
	}
}
