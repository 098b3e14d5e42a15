package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
)

// checkPanic checks the Panic model (one violation, 3 steps) into database db.
func checkPanic(t *testing.T, db string) (code int, stdout, stderr string) {
	t.Helper()
	f := checkFlags{model: "Panic", params: settings{}, quiet: true, db: db, run: service.RunSettings{Search: "bfs"}}
	var out, errb bytes.Buffer
	code, err := check(context.Background(), &f, "../../internal/coord/testdata/badmodels", &out, &errb)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	return code, out.String(), errb.String()
}

// TestCheckDamagedDatabase: a database whose header is damaged is not written at all, and the
// check still prints the violation and its trace, then says it was not stored and why.
func TestCheckDamagedDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	if code, out, _ := checkPanic(t, db); code != 1 || !strings.Contains(out, "stored as trace 1 in") {
		t.Fatalf("first check: exit %d\n%s", code, out)
	}
	damaged, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	copy(damaged[16:24], "\xff\xff\xff\xff\xff\xff\xff\xff") // page size, versions, reserved space, payload fractions
	if err := os.WriteFile(db, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := checkPanic(t, db)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a violation)", code)
	}
	for _, want := range []string{"violation: panic: boom", "3  p  bad",
		"the violation above was not stored in " + db + ": store: open " + db + ": not a cmcdap trace database"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "stored as trace") || strings.Contains(out, "next:") {
		t.Errorf("output claims a stored trace:\n%s", out)
	}
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, damaged) {
		t.Errorf("the damaged database changed (%v)", err)
	}
}

// TestCheckWriteError: storing the trace fails (a trigger makes SQLite refuse it, as a full disk
// would): the check prints the violation and says it was not stored and why, and the run is
// not marked finished, since its trace is not there.
func TestCheckWriteError(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	s, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TRIGGER full BEFORE INSERT ON traces BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	code, out, _ := checkPanic(t, db)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a violation)", code)
	}
	for _, want := range []string{"violation: panic: boom", "3  p  bad",
		"the violation above was not stored in " + db + ": ", "database or disk is full"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	s, err = store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run, err := s.Run(1)
	if err != nil || run.Outcome != "" || !run.End.IsZero() {
		t.Errorf("run 1: %+v, %v; want it stored without an end or outcome", run, err)
	}
}

// TestCheckNextSteps: after a stored violation the check prints, exactly, how to open its trace
// in the terminal, the browser and VS Code.
func TestCheckNextSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	db := filepath.Join(t.TempDir(), "traces.db")
	code, out, _ := checkPanic(t, db)
	want := "stored as trace 1 in " + db + "\n" +
		"\nnext:\n" +
		"  cmcdap trace show -db " + db + " 1    (print the trace step by step)\n" +
		"  cmcdap serve -db " + db + " -pkg ../../internal/coord/testdata/badmodels -open    (heap graph, diff and sequence chart in a browser: click trace 1)\n" +
		"  in VS Code: CMC: Open Trace in the Command Palette, trace 1 (or click #1 in the CMC Traces view), with the cmc.db setting set to " + db + "\n"
	if code != 1 || !strings.HasSuffix(out, want) {
		t.Errorf("exit %d; output ends\n%s\nwant it to end\n%s", code, out[max(0, len(out)-len(want)-100):], want)
	}
	var b strings.Builder
	writeNextSteps(&b, 7, "", "./my pkg")
	wantDefault := "\nnext:\n" +
		"  cmcdap trace show 7    (print the trace step by step)\n" +
		"  cmcdap serve -pkg './my pkg' -open    (heap graph, diff and sequence chart in a browser: click trace 7)\n" +
		"  in VS Code: CMC: Open Trace in the Command Palette, trace 7 (or click #7 in the CMC Traces view)\n"
	if b.String() != wantDefault {
		t.Errorf("with the default database:\n%s\nwant\n%s", b.String(), wantDefault)
	}
}
