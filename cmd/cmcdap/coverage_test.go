package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// check -cover prints the coverage of the model's code with the summary and in -json, stores it
// with the run, and cmcdap coverage RUN prints it again; a run checked without -cover says how
// to measure it.
func TestCheckCover(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	pkg := "../../internal/coord/testdata/covered"
	var out, errb bytes.Buffer
	if code := runCheck([]string{"-q", "-cover", "-db", db, pkg}, &out, &errb); code != 0 {
		t.Fatalf("check -cover: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"coverage of the user's code: ", "covered.go", "c.inc", "9 runs", "branching: 2.75 transitions per expanded state (12 expanded)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check -cover output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := coverageCommand([]string{"-db", db, "latest"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "c.inc") || !strings.Contains(out.String(), "growth (transitions: statements covered): 33: ") {
		t.Errorf("coverage 1: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := runCheck([]string{"-q", "-json", "-db", db, pkg}, &out, &errb); code != 0 {
		t.Fatalf("check -json: exit %d\n%s", code, errb.String())
	}
	var js struct {
		Branching float64
		Events    []struct{ Event string }
		Coverage  *struct{}
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || js.Branching != 2.75 || len(js.Events) != 2 || js.Coverage != nil {
		t.Errorf("check -json without -cover: %+v, %v\n%s", js, err, out.String())
	}
	errb.Reset()
	if code := runCheck([]string{"-q", "-coverpkg", "example.com/lib", "-db", db, pkg}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-coverpkg names packages to measure with -cover: add -cover") {
		t.Errorf("-coverpkg without -cover: exit %d, %s", code, errb.String())
	}
	out.Reset()
	if code := coverageCommand([]string{"-db", db, "2"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "not measured (check with -cover)") {
		t.Errorf("coverage 2: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
