package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/service"
)

// TestExportHangAndCrash: the exported test of a trace whose last step hangs, and of one whose
// last step exits the process, fails while the bug is there and passes once it is fixed.
func TestExportHangAndCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries and runs go test")
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "traces.db")
	for _, model := range []string{"Hang", "Exit"} {
		f := checkFlags{model: model, params: settings{}, quiet: true, db: db, run: service.RunSettings{Search: "bfs", Deadline: 1}}
		var out, errb bytes.Buffer
		if code, err := check(ctx, &f, "./testdata/stuck", &out, &errb); code != 1 || err != nil {
			t.Fatalf("check %s: exit %d, %v\n%s%s", model, code, err, out.String(), errb.String())
		}
	}

	dir, err := os.MkdirTemp("testdata", "export-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src, err := os.ReadFile("testdata/stuck/stuck.go")
	if err != nil {
		t.Fatal(err)
	}
	copyFile := filepath.Join(dir, "stuck.go")
	if err := os.WriteFile(copyFile, src, 0o644); err != nil {
		t.Fatal(err)
	}
	rf := &replayFlags{db: db, pkg: "./" + filepath.ToSlash(dir)}
	for id, file := range map[int64]string{1: "hang_test.go", 2: "exit_test.go"} {
		var out bytes.Buffer
		if err := exportTest(ctx, rf, id, filepath.Join(dir, file), &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "fails while its last step still ends in") {
			t.Errorf("export-test %d said %q", id, out.String())
		}
	}
	goTest := func() (string, error) {
		cmd := exec.Command("go", "test", "-count=1", "-v", rf.pkg)
		cmd.Env = append(os.Environ(), "CMCTEST_DEADLINE=2s")
		b, err := cmd.CombinedOutput()
		return string(b), err
	}

	out, err := goTest()
	if err == nil {
		t.Fatalf("go test passed with the bugs there:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestTraceHangHang", "then step 3 (p, inc) hung: it did not return within 2s",
		"--- FAIL: TestTraceExitCrash", "then step 3 (p, inc) crashed the test process (exit status 7)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("go test with the bugs there lacks %q:\n%s", want, out)
		}
	}

	fixed := bytes.Replace(src, []byte("const fixed = false"), []byte("const fixed = true"), 1)
	if err := os.WriteFile(copyFile, fixed, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = goTest()
	if err != nil || !strings.Contains(out, "--- PASS: TestTraceHangHang") || !strings.Contains(out, "--- PASS: TestTraceExitCrash") {
		t.Fatalf("go test with the bugs fixed: %v\n%s", err, out)
	}
}
