package cluster

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestFileCheckpoints: no checkpoint is nil; a save replaces the last whole; a save that fails
// leaves the last one.
func TestFileCheckpoints(t *testing.T) {
	dir := t.TempDir()
	c := fileCheckpoints{checkpointFile(dir, "r1", 2)}
	if rc, err := c.Load(); rc != nil || err != nil {
		t.Fatalf("no checkpoint: %v, %v", rc, err)
	}
	save := func(s string, fail error) error {
		return c.Save(func(w io.Writer) error {
			io.WriteString(w, s)
			return fail
		})
	}
	if err := save("level 3", nil); err != nil {
		t.Fatal(err)
	}
	if err := save("level 4, cut short", errors.New("disk full")); err == nil {
		t.Fatal("a failed save succeeded")
	}
	rc, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if b, _ := io.ReadAll(rc); string(b) != "level 3" {
		t.Errorf("loaded %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Errorf("left %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "r1-p2.checkpoint")); err != nil {
		t.Error(err)
	}
}
