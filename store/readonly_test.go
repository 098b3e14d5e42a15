package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenReadOnly: a database the user may not write opens for reading, reads, refuses writes
// and is byte-for-byte the same afterwards; a missing file and another file are refused.
func TestOpenReadOnly(t *testing.T) {
	s, path := openTemp(t)
	id, err := s.AddTrace(0, richTrace(), time.Unix(5, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, info, err := ro.Trace(id); err != nil || info.Model != richTrace().Model {
		t.Errorf("reading trace %d: %+v, %v", id, info, err)
	}
	newTrace := richTrace() // not the stored one, which AddTrace would find instead of storing
	newTrace.Steps[0].Hash++
	if _, err := ro.AddTrace(0, newTrace, time.Unix(6, 0)); err == nil {
		t.Errorf("a read-only store stored a trace")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("opening read-only changed the file")
	}

	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v; want not exist", err)
	}
	other := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(other, []byte("not a database, but long enough to have a header"), 0o644)
	if _, err := OpenReadOnly(other); !errors.Is(err, ErrNotStore) {
		t.Errorf("a text file: %v; want ErrNotStore", err)
	}
}
