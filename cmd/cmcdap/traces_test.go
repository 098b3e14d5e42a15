package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
)

// tracesDB makes a database with two traces of the same violation (along different steps), a
// random walk and a bookmark.
func tracesDB(t *testing.T) (path string, loop *engine.Trace) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "traces.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loop = &engine.Trace{
		Model: "aodv", Params: map[string]string{"nodes": "3", "bug": "spec"}, InitHash: 7,
		Init: []canon.Leaf{{Path: "B.routes[D].seq", Value: "3"}, {Path: "B.seq", Value: "1"}},
		Steps: []engine.Step{{
			Proc: "B", Event: "recvRERR", Site: "/home/dev/aodv/rerr.go:57", Hash: 8,
			Choices: []engine.Choice{{Value: 1, N: 2, Site: "/home/dev/cmc/env/net.go:93", Label: "deliver RERR C→B"}},
			Notes:   []engine.Note{{Kind: "deliver", From: "C", To: "B", Msg: "RERR{dest=D seq=2}"}},
			Changes: []canon.Change{{Path: "B.routes[D].seq", Kind: "changed", Old: "3", New: "2"},
				{Path: "B.routes[D].valid", Kind: "added", New: "false"}},
		}},
		Violation: engine.NewViolation("invariant", "noloop", "routing loop: A -> B -> A", ""),
	}
	found := time.Date(2025, 3, 1, 12, 30, 0, 0, time.UTC)
	// The same violation along two paths: the same one twice would be stored once.
	detour := *loop
	detour.Steps = slices.Clone(loop.Steps)
	detour.Steps[0].Hash++
	for _, tr := range []*engine.Trace{&detour, loop} {
		if _, err := db.AddTrace(0, tr, found); err != nil {
			t.Fatal(err)
		}
	}
	walk := &engine.Trace{Model: "twophase", Steps: make([]engine.Step, 12)}
	if _, err := db.AddTrace(0, walk, found); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddBookmark(store.Bookmark{Trace: 1, Step: 1, Name: "stale rerr", Note: "B takes seq 2 < 3", Created: found}); err != nil {
		t.Fatal(err)
	}
	return path, loop
}

func runCmd(f func([]string, io.Writer, io.Writer) int, args ...string) (code int, stdout, stderr string) {
	var out, errb strings.Builder
	code = f(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestTracesCommand(t *testing.T) {
	path, _ := tracesDB(t)
	code, out, errs := runCmd(tracesCommand, "-db", path)
	when := time.Date(2025, 3, 1, 12, 30, 0, 0, time.UTC).Local().Format("2006-01-02 15:04:05")
	want := "ID  MODEL     KIND       STEPS  FOUND                SEEN  MESSAGE\n" +
		" 1  aodv      invariant      1  " + when + "     2  routing loop: A -> B -> A\n" +
		" 2  aodv      invariant      1  " + when + "     2  routing loop: A -> B -> A\n" +
		" 3  twophase  walk          12  " + when + "     -  \n"
	if code != 0 || errs != "" || out != want {
		t.Errorf("traces: code %d, stderr %q, output\n%s\nwant\n%s", code, errs, out, want)
	}

	code, out, _ = runCmd(tracesCommand, "-json", "-db", path)
	var infos []store.TraceInfo
	if err := json.Unmarshal([]byte(out), &infos); code != 0 || err != nil || len(infos) != 3 || infos[1].FirstSeen != 1 {
		t.Errorf("traces -json: code %d, %v, %s", code, err, out)
	}
}

func TestTraceShowCommand(t *testing.T) {
	path, loop := tracesDB(t)
	when := time.Date(2025, 3, 1, 12, 30, 0, 0, time.UTC).Local().Format("2006-01-02 15:04:05")
	want := `trace 2: aodv (bug=spec nodes=3), 1 step, found ` + when + `
violation: invariant noloop: routing loop: A -> B -> A
found 2 times (signature invariant:noloop), first as trace 1

0  initial state: 2 values
1  B  recvRERR  rerr.go:57
     choose 1/2: deliver RERR C→B @ net.go:93
     deliver C->B RERR{dest=D seq=2}
     ~ B.routes[D].seq    3 -> 2
     + B.routes[D].valid  false
`
	code, out, errs := runCmd(traceShowCommand, "-db", path, "2")
	if code != 0 || errs != "" || out != want {
		t.Errorf("trace show: code %d, stderr %q, output\n%s\nwant\n%s", code, errs, out, want)
	}
	if strings.Contains(out, "/home/dev") {
		t.Errorf("trace show names a recorded absolute path:\n%s", out)
	}

	code, out, _ = runCmd(traceShowCommand, "2", "-json", "-db", path) // flags after the id too
	var got struct {
		Info  store.TraceInfo
		Trace *engine.Trace
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Info.Seen != 2 {
		t.Fatalf("trace show -json: code %d, %v, %s", code, err, out)
	}
	if d := cmp.Diff(loop, got.Trace, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("trace show -json:\n%s", d)
	}
}

func TestBookmarksCommand(t *testing.T) {
	path, _ := tracesDB(t)
	when := time.Date(2025, 3, 1, 12, 30, 0, 0, time.UTC).Local().Format("2006-01-02 15:04:05")
	want := "NAME        TRACE  STEP  CREATED              NOTE\n" +
		"stale rerr      1     1  " + when + "  B takes seq 2 < 3\n"
	code, out, errs := runCmd(bookmarksCommand, "-db", path)
	if code != 0 || errs != "" || out != want {
		t.Errorf("bookmarks: code %d, stderr %q, output\n%s\nwant\n%s", code, errs, out, want)
	}
	code, out, _ = runCmd(bookmarksCommand, "-db", path, "-json")
	var bms []store.Bookmark
	if err := json.Unmarshal([]byte(out), &bms); code != 0 || err != nil || len(bms) != 1 || bms[0].Name != "stale rerr" {
		t.Errorf("bookmarks -json: code %d, %v, %s", code, err, out)
	}
}

// Errors are one line on stderr and exit code 2.
func TestTracesCommandErrors(t *testing.T) {
	path, _ := tracesDB(t)
	missing := filepath.Join(t.TempDir(), "none.db")
	for _, c := range []struct {
		f    func([]string, io.Writer, io.Writer) int
		args []string
		says string
	}{
		{tracesCommand, []string{"-db", missing}, "cmcdap traces: no trace database at " + missing},
		{tracesCommand, []string{"-db", path, "3"}, "cmcdap traces: unexpected argument"},
		{traceShowCommand, []string{"-db", path}, "cmcdap trace show: give one trace id"},
		{traceShowCommand, []string{"-db", path, "x"}, `cmcdap trace show: "x" is not a trace id`},
		{traceShowCommand, []string{"-db", path, "9"}, "cmcdap trace show: no trace 9 in " + path},
		{traceShowCommand, []string{"-db", missing, "1"}, "no trace database at"},
		{bookmarksCommand, []string{"-db", missing}, "cmcdap bookmarks: no trace database"},
		{bookmarksCommand, []string{"-db", filepath.Dir(path)}, "not a cmcdap trace database"},
	} {
		code, out, errs := runCmd(c.f, c.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "cmcdap ") || !strings.Contains(errs, c.says) ||
			strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.says)
		}
	}
	if code, _, _ := runCmd(tracesCommand, "-nosuchflag"); code != 2 {
		t.Errorf("a bad flag: exit %d", code)
	}
}

// TestReadOnlyDatabase: traces and trace show work on a database in a read-only directory, with
// the file itself chmod 0444, and leave it byte-for-byte as it was. (Run as root, the modes do
// not stop writes; the store opens such a database with mode=ro, and store.TestOpenReadOnly shows
// that refuses writes.)
func TestReadOnlyDatabase(t *testing.T) {
	path, _ := tracesDB(t)
	dir := filepath.Dir(path)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if code, out, errs := runCmd(tracesCommand, "-db", path); code != 0 || !strings.Contains(out, "routing loop: A -> B -> A") {
		t.Errorf("traces: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCmd(traceShowCommand, "-db", path, "1"); code != 0 || !strings.Contains(out, "trace 1: aodv") {
		t.Errorf("trace show 1: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCmd(bookmarksCommand, "-db", path); code != 0 || !strings.Contains(out, "stale rerr") {
		t.Errorf("bookmarks: exit %d\n%s%s", code, out, errs)
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("listing changed the database (%v)", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v; want only the database", names)
	}
}

// traces -prune removes the copies a database written before traces were merged may hold: the
// same violation along the same steps, kept once, its bookmarks moved to the one kept.
func TestTracesPrune(t *testing.T) {
	path, _ := tracesDB(t)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1) // the temporary tables below belong to one connection
	// A copy of trace 1, with trace 1's bookmark moved onto it, as an older cmcdap stored it.
	for _, q := range []string{
		`CREATE TEMP TABLE t AS SELECT * FROM traces WHERE id = 1`,
		`UPDATE t SET id = 4`,
		`INSERT INTO traces SELECT * FROM t`,
		`CREATE TEMP TABLE s AS SELECT * FROM steps WHERE trace_id = 1`,
		`UPDATE s SET trace_id = 4`,
		`INSERT INTO steps SELECT * FROM s`,
		`CREATE TEMP TABLE c AS SELECT * FROM checkpoints WHERE trace_id = 1`,
		`UPDATE c SET trace_id = 4`,
		`INSERT INTO checkpoints SELECT * FROM c`,
		`UPDATE bookmarks SET trace_id = 4`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	code, out, errs := runCmd(tracesCommand, "-db", path, "-prune")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "removed trace 4: the same as trace 1\n\n") || strings.Contains(out, "\n 4 ") {
		t.Errorf("traces -prune: code %d, stderr %q, output\n%s", code, errs, out)
	}
	if code, out, _ := runCmd(bookmarksCommand, "-db", path, "-json"); code != 0 || !strings.Contains(out, `"trace": 1,`) {
		t.Errorf("the bookmark of the removed copy: %s", out)
	}
	code, out, _ = runCmd(tracesCommand, "-db", path, "-prune", "-json")
	if code != 0 || out != "[]\n" {
		t.Errorf("traces -prune -json again: code %d, %q", code, out)
	}
}

// Bookmarks can be renamed and deleted without a debug session.
func TestBookmarksEdit(t *testing.T) {
	path, _ := tracesDB(t)
	if code, out, errs := runCmd(bookmarksCommand, "-db", path, "-rename", "stale rerr", "-to", " before fix "); code != 0 || out != "renamed bookmark stale rerr to before fix\n" {
		t.Errorf("bookmarks -rename: code %d, %q, %q", code, out, errs)
	}
	if code, _, errs := runCmd(bookmarksCommand, "-db", path, "-rename", "before fix"); code != 2 || !strings.Contains(errs, "with -to NEWNAME") {
		t.Errorf("bookmarks -rename without -to: code %d, %q", code, errs)
	}
	if code, _, errs := runCmd(bookmarksCommand, "-db", path, "-delete", "stale rerr"); code != 2 || !strings.Contains(errs, "not found") {
		t.Errorf("bookmarks -delete of the old name: code %d, %q", code, errs)
	}
	if code, out, errs := runCmd(bookmarksCommand, "-db", path, "-delete", "before fix"); code != 0 || out != "deleted bookmark before fix\n" {
		t.Errorf("bookmarks -delete: code %d, %q, %q", code, out, errs)
	}
	if code, out, _ := runCmd(bookmarksCommand, "-db", path); code != 0 || !strings.HasPrefix(out, "no bookmarks") {
		t.Errorf("bookmarks after delete: %q", out)
	}
}

// TestDiffCommand: two traces of the same violation along different steps part at step 1,
// whose states are alike here; a trace against itself is alike throughout; a missing trace is a
// one-line error.
func TestDiffCommand(t *testing.T) {
	db, _ := tracesDB(t)
	code, out, errs := runCmd(diffCommand, "-db", db, "1", "2")
	want := `trace 1: aodv, 1 step, invariant noloop: routing loop: A -> B -> A
trace 2: aodv, 1 step, invariant noloop: routing loop: A -> B -> A
the same first 0 steps
1  1: B  recvRERR  choose 1 of 2: deliver RERR C→B
   2: B  recvRERR  choose 1 of 2: deliver RERR C→B
   the same state after 1
`
	if code != 0 || out != want {
		t.Errorf("diff 1 2: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errs, out, want)
	}
	if code, out, _ := runCmd(diffCommand, "-db", db, "2", "2"); code != 0 || !strings.Contains(out, "the same 1 step: the traces are alike") {
		t.Errorf("diff 2 2: exit %d, %s", code, out)
	}
	code, _, errs = runCmd(diffCommand, "-db", db, "1", "9")
	if code != 2 || !strings.HasPrefix(errs, "cmcdap diff: no trace 9 in ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("diff 1 9: exit %d, stderr %q; want a one-line error naming trace 9", code, errs)
	}
	// Traces from different initial states part at the start.
	code, out, _ = runCmd(diffCommand, "-db", db, "2", "3")
	if code != 0 || !strings.Contains(out, "the initial states differ\n 0  the initial states\n    initial state: 2 differences (2 -> 3)\n") || strings.Contains(out, "(ended)\n   3: (ended)") {
		t.Errorf("diff 2 3: exit %d:\n%s", code, out)
	}
	if code, _, errs := runCmd(diffCommand, "-db", db, "1"); code != 2 || !strings.Contains(errs, "give two trace ids") {
		t.Errorf("diff 1: exit %d, stderr %q", code, errs)
	}
}
