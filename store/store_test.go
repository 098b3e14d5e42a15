package store

import (
	"database/sql"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// richTrace has something of every kind: params, a violation, notes with empty fields, every
// kind of change (and ones the short encodings cannot hold), negative and large values, and
// more steps than a checkpoint interval.
func richTrace() *engine.Trace {
	t := &engine.Trace{
		Model:    "aodv",
		Params:   map[string]string{"nodes": "3", "bug": "spec-rerr", "": "empty key"},
		InitHash: engine.Hash(0xfedcba9876543210),
		Procs:    []string{"A", "B"},
		Env:      []string{"net", "x"},
		Init: []canon.Leaf{{Path: "A.seq", Value: "1"}, {Path: "A.routes[B].seq", Value: "0"},
			{Path: "B.seq", Value: "1"}, {Path: "net", Value: "{}"}, {Path: "x", Value: ""}},
		Violation: engine.NewViolation("assertion", "", "route to D has seq 3 < 4", "/src/aodv/rerr.go:57"),
	}
	t.Steps = append(t.Steps, engine.Step{
		Proc: "A", Event: "timeout", Hash: 1, Site: "/src/aodv/timers.go:12",
		Choices: []engine.Choice{{Value: 0, N: 2, Site: "/src/aodv/rreq.go:40", Label: "deliver RREP C→A"}, {Value: -7, N: 1 << 40, Site: ""}},
		Notes:   []engine.Note{{Kind: "send", From: "A", To: "B", Msg: "RREQ{orig=A dest=D seq=2}"}, {Kind: "tick"}},
		Changes: []canon.Change{
			{Path: "A.seq", Kind: "changed", Old: "1", New: "2"},
			{Path: "net.msgs[0].kind", Kind: "added", New: `"RREQ"`},
			{Path: "net", Kind: "removed", Old: "{}"},
		},
	})
	t.Steps = append(t.Steps, engine.Step{
		Proc: "B", Event: "recv", Hash: engine.Hash(^uint64(0)),
		Changes: []canon.Change{
			{Path: "weird", Kind: "added", Old: "had an old value", New: "n"},
			{Path: "x", Kind: "removed", Old: "", New: "left a new value"},
			{Path: "y", Kind: "renamed", Old: "a", New: "b"},
			{Path: "B.seq", Kind: "changed", Old: "", New: ""},
			{Path: "ünïcode[\"ключ\"]", Kind: "added", New: "\x00\xff"},
		},
	})
	for i := range 150 {
		t.Steps = append(t.Steps, engine.Step{Proc: "C", Event: "tick", Hash: engine.Hash(i),
			Changes: []canon.Change{{Path: "A.seq", Kind: "changed", Old: "x", New: "y"}}})
	}
	return t
}

func TestRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		found := time.Date(2025, 3, 1, 12, 30, 0, 123456789, time.FixedZone("X", 3600))
		for _, tr := range []*engine.Trace{
			richTrace(),
			{Model: "empty"},
			{Model: "walk", Init: []canon.Leaf{{Path: "a", Value: "1"}}, Steps: []engine.Step{{Proc: "p", Event: "e"}}},
			newSynth(1).trace(300),
		} {
			id, err := s.AddTrace(0, tr, found)
			if err != nil {
				t.Fatal(err)
			}
			got, info, err := s.Trace(id)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tr, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("trace %s (-stored +read):\n%s", tr.Model, d)
			}
			if info.Length != len(tr.Steps) || !info.Found.Equal(found) || info.Model != tr.Model {
				t.Errorf("info %+v", info)
			}
			if (tr.Violation == nil) != (got.Violation == nil) {
				t.Errorf("violation %v read as %v", tr.Violation, got.Violation)
			}
			for _, n := range []int{1, len(tr.Steps)} {
				if n < 1 || n > len(tr.Steps) {
					continue
				}
				st, err := s.StepAt(id, n)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tr.Steps[n-1], st, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("step %d:\n%s", n, d)
				}
			}
			if err := complete(s, id); err != nil {
				t.Error(err)
			}
		}
	})
}

func TestStepErrors(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		id, err := s.AddTrace(0, newSynth(2).trace(10), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 11, -1} {
			if _, err := s.StepAt(id, n); !errors.Is(err, ErrNotFound) {
				t.Errorf("StepAt(%d): %v, want ErrNotFound", n, err)
			}
		}
		if _, err := s.State(id, 11); !errors.Is(err, ErrNotFound) {
			t.Errorf("State(11): %v", err)
		}
		if _, err := s.StepAt(id+1, 1); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "trace") {
			t.Errorf("StepAt of a missing trace: %v", err)
		}
		if _, _, err := s.Trace(id + 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("Trace of a missing trace: %v", err)
		}
	})
}

// TestStateIsFold checks State(n) against the fold of every diff from the initial state, for
// random n, and the fold against the true states the diffs were made from.
func TestStateIsFold(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		seed := rand.Uint64()
		t.Logf("seed %d", seed)
		rng := rand.New(rand.NewPCG(seed, 1))
		s, _ := open(t)
		y := newSynth(seed)
		tr := y.trace(1000)
		truth := y.leaves
		id, err := s.AddTrace(0, tr, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		ns := []int{0, 1, 63, 64, 65, 999, 1000}
		for range 40 {
			ns = append(ns, rng.IntN(1001))
		}
		for _, n := range ns {
			want := tr.Init
			for _, st := range tr.Steps[:n] {
				want = Apply(want, st.Changes)
			}
			got, err := s.State(id, n)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("State(%d) is not the fold of its diffs:\n%s", n, d)
			}
		}
		last, _ := s.State(id, 1000)
		if d := cmp.Diff(truth, last, cmpopts.SortSlices(func(a, b canon.Leaf) bool { return a.Path < b.Path })); d != "" {
			t.Fatalf("the fold differs from the true final state:\n%s", d)
		}
	})
}

func TestApplyPlacesAddedLeaves(t *testing.T) {
	leaves := func(paths ...string) []canon.Leaf {
		var out []canon.Leaf
		for _, p := range paths {
			out = append(out, canon.Leaf{Path: p, Value: "v"})
		}
		return out
	}
	for _, c := range []struct{ before, after []canon.Leaf }{
		{ // a new route: after the last one, as one block
			leaves("B.seq", "B.routes[1].dest", "B.routes[1].seq", "B.routes[1].hops", "B.seen", "C.seq"),
			leaves("B.seq", "B.routes[1].dest", "B.routes[1].seq", "B.routes[1].hops",
				"B.routes[2].dest", "B.routes[2].seq", "B.routes[2].hops", "B.seen", "C.seq"),
		},
		{ // before the first, numbers compared as numbers
			leaves("m[9].a", "m[10].a", "n"),
			leaves("m[2].a", "m[2].b", "m[9].a", "m[10].a", "m[11].a", "n"),
		},
		{ // into an empty state
			nil, leaves("a", "b"),
		},
		{ // removals and an addition at once
			leaves("net.msgs[0].from", "net.msgs[0].kind", "net.msgs[1].from", "x"),
			leaves("net.msgs[1].from", "net.msgs[2].from", "x"),
		},
	} {
		got := Apply(c.before, canon.Diff(c.before, c.after))
		if d := cmp.Diff(c.after, got, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("Apply:\n%s", d)
		}
	}
	// Lenient: a change that does not fit still gives a state.
	got := Apply(leaves("a"), []canon.Change{{Path: "b", Kind: "changed", New: "1"}, {Path: "a", Kind: "added", New: "2"},
		{Path: "zz", Kind: "removed"}})
	want := []canon.Leaf{{Path: "a", Value: "2"}, {Path: "b", Value: "1"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lenient Apply:\n%s", d)
	}
}

func TestComparePaths(t *testing.T) {
	sorted := []string{"", "a", "a[2]", "a[10]", "a[010]", "a[11].x", "a[11]x", "ab", "b1", "b01", "b2"}
	for i, a := range sorted {
		for j, b := range sorted {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := comparePaths(a, b); got != want {
				t.Errorf("comparePaths(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestRunsAndSignatures(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		start := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
		r := Run{Model: "aodv", Package: "example.com/aodv", Params: map[string]string{"nodes": "3"},
			Settings: []byte(`{"search":"bfs","depth":12}`), Code: "sha256:abc", Start: start}
		id, err := s.AddRun(r)
		if err != nil {
			t.Fatal(err)
		}
		r.ID, r.End, r.States, r.Transitions, r.Depth, r.Complete, r.Outcome = id, start.Add(time.Minute), 100, 250, 7, true, "violation"
		if err := s.EndRun(r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Run(id)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(r, got); d != "" {
			t.Errorf("run:\n%s", d)
		}
		if err := s.EndRun(Run{ID: 99}); !errors.Is(err, ErrNotFound) {
			t.Errorf("EndRun of a missing run: %v", err)
		}
		if _, err := s.AddRun(Run{Model: "m", Settings: []byte("{")}); err == nil {
			t.Error("AddRun took invalid JSON settings")
		}

		loop := newSynth(3).trace(5)
		other := newSynth(4).trace(5)
		other.Violation = engine.NewViolation("deadlock", "", "no event enabled", "")
		first, _ := s.AddTrace(id, loop, time.Time{})
		s.AddTrace(id, other, time.Time{})
		// The same violation along another path: a trace of its own that shares the signature.
		detour := *loop
		detour.Steps = slices.Clone(loop.Steps)
		detour.Steps[len(detour.Steps)-1].Hash++
		again, _ := s.AddTrace(0, &detour, time.Time{})
		walk := newSynth(5).trace(3)
		walk.Violation = nil
		w, _ := s.AddTrace(0, walk, time.Time{})

		ti, err := s.TraceInfo(again)
		if err != nil {
			t.Fatal(err)
		}
		if ti.Seen != 2 || ti.FirstSeen != first || ti.Signature != "invariant:noloop" || ti.Run != 0 {
			t.Errorf("the same violation again: %+v", ti)
		}
		same, err := s.Traces(TraceQuery{Model: "aodv", Signature: "invariant:noloop"})
		if err != nil || len(same) != 2 || same[0].ID != first || same[1].ID != again {
			t.Errorf("traces by signature: %+v, %v", same, err)
		}
		ofRun, _ := s.Traces(TraceQuery{Run: id})
		if len(ofRun) != 2 || ofRun[0].Kind != "invariant" || ofRun[1].Kind != "deadlock" || ofRun[1].Seen != 1 {
			t.Errorf("traces of the run: %+v", ofRun)
		}
		ti, _ = s.TraceInfo(w)
		if ti.Kind != "" || ti.Seen != 0 || ti.FirstSeen != 0 {
			t.Errorf("a walk: %+v", ti)
		}
		all, _ := s.Traces(TraceQuery{})
		last, _ := s.Traces(TraceQuery{Limit: 2})
		if len(all) != 4 || len(last) != 2 || last[1].ID != w {
			t.Errorf("all %d traces, last two %+v", len(all), last)
		}
		runs, err := s.Runs()
		if err != nil || len(runs) != 1 {
			t.Errorf("runs: %v %v", runs, err)
		}
	})
}

func TestBookmarks(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		id, err := s.AddTrace(0, newSynth(6).trace(20), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		when := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
		b := Bookmark{Trace: id, Step: 7, Name: "loop starts", Note: "B trusts a stale RERR", Created: when}
		if b.ID, err = s.AddBookmark(b); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddBookmark(Bookmark{Trace: id, Step: 1, Name: "loop starts"}); !errors.Is(err, ErrNameTaken) ||
			!strings.Contains(err.Error(), `"loop starts"`) {
			t.Errorf("a second bookmark of the same name: %v", err)
		}
		for _, bad := range []Bookmark{{Trace: id, Step: 21, Name: "past the end"}, {Trace: id, Step: -1, Name: "before"},
			{Trace: id + 1, Name: "no trace"}, {Trace: id, Name: " "}} {
			if _, err := s.AddBookmark(bad); err == nil {
				t.Errorf("AddBookmark(%+v) succeeded", bad)
			}
		}
		now, err := s.AddBookmark(Bookmark{Trace: id, Step: 0, Name: "start"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.BookmarkByName("loop starts")
		if err != nil || !cmp.Equal(b, got) {
			t.Errorf("BookmarkByName: %+v %v, want %+v", got, err, b)
		}
		if err := s.RenameBookmark("loop starts", "start"); !errors.Is(err, ErrNameTaken) {
			t.Errorf("rename onto a taken name: %v", err)
		}
		if err := s.RenameBookmark("nope", "x"); !errors.Is(err, ErrNotFound) {
			t.Errorf("rename a missing bookmark: %v", err)
		}
		if err := s.RenameBookmark("loop starts", "stale rerr"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.BookmarkByName("loop starts"); !errors.Is(err, ErrNotFound) {
			t.Errorf("old name still there: %v", err)
		}
		all, err := s.Bookmarks()
		if err != nil || len(all) != 2 || all[0].Name != "stale rerr" || all[1].ID != now || all[1].Created.IsZero() {
			t.Errorf("Bookmarks: %+v %v", all, err)
		}
		if err := s.DeleteBookmark("stale rerr"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteBookmark("stale rerr"); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		if all, _ := s.Bookmarks(); len(all) != 1 {
			t.Errorf("after delete: %+v", all)
		}
	})
}

func TestReopenAndDefaultPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a dir?with#odd%20chars")
	path := DefaultPath(dir)
	if want := filepath.Join(dir, ".cmc", "traces.db"); path != want {
		t.Fatalf("DefaultPath = %s", path)
	}
	s, err := Open(path) // creates .cmc
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.AddTrace(0, newSynth(7).trace(70), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := complete(s, id); err != nil {
		t.Fatal(err)
	}
	var ver int
	s.db.QueryRow("PRAGMA user_version").Scan(&ver)
	if ver != SchemaVersion() {
		t.Errorf("user_version %d", ver)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 { // the file is where it was asked for
		t.Errorf("database file: %v", err)
	}
}

func TestNewerSchema(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, path := open(t)
		setVersion(t, s, 99)
		s.Close()
		_, err := Open(path)
		want := "store: database " + Printable(path) + " was written by a newer cmcdap (schema 99, this one knows " + strconv.Itoa(SchemaVersion()) + "): upgrade cmcdap"
		if !errors.Is(err, ErrNewerSchema) || err.Error() != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
	})
}

func TestNotAStore(t *testing.T) {
	dir := t.TempDir()
	random := filepath.Join(dir, "random.db")
	b := make([]byte, 8192)
	for i := range b {
		b[i] = byte(rand.Uint32())
	}
	os.WriteFile(random, b, 0o644)

	// Another program's database: tables of its own, user_version 0.
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ann')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// One with an application id of its own.
	other := filepath.Join(dir, "other.db")
	db, _ = sql.Open("sqlite", other)
	db.Exec("PRAGMA application_id = 7; PRAGMA user_version = 1; CREATE TABLE t (x)")
	db.Close()
	// Our header, then garbage.
	s, ours := openTemp(t)
	s.AddTrace(0, newSynth(8).trace(100), time.Time{})
	s.Close()
	damaged := filepath.Join(dir, "damaged.db")
	good, _ := os.ReadFile(ours)
	os.WriteFile(damaged, append(good[:100:100], b...), 0o644)

	for _, c := range []struct{ path, says string }{
		{random, "it is not an SQLite database"},
		{foreign, "it has tables users"},
		{other, "application id 0x7"},
		{damaged, ""},
		{dir, "directory"},
	} {
		st, err := Open(c.path)
		if err == nil {
			// A damaged file may open; reading it must fail cleanly, not panic.
			_, err = st.Traces(TraceQuery{})
			st.Close()
		}
		if err == nil {
			t.Errorf("%s: opened", c.path)
			continue
		}
		if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v", c.path, err)
		}
		if c.says != "" && c.path != dir && !errors.Is(err, ErrNotStore) {
			t.Errorf("%s: %v is not ErrNotStore", c.path, err)
		}
	}
	// The foreign database was not touched: still in its own journal mode, its row still there.
	db, _ = sql.Open("sqlite", foreign)
	defer db.Close()
	var mode, name string
	db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	db.QueryRow("SELECT name FROM users").Scan(&name)
	if mode != "delete" || name != "ann" {
		t.Errorf("foreign database changed: journal mode %q, row %q", mode, name)
	}
}

// TestAtomicity polls traces while a 10,000-step trace is written: a trace is never visible
// with fewer steps than its length.
func TestAtomicity(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, path := open(t)
		reader, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer reader.Close()
		tr := newSynth(9).trace(10000)
		done := make(chan error, 1)
		go func() {
			for range 3 {
				if _, err := s.AddTrace(0, tr, time.Time{}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		polls, seen := 0, 0
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				if seen == 0 {
					t.Log("the reader never saw a trace while polling")
				}
				t.Logf("%d polls, %d traces seen complete", polls, seen)
				return
			default:
			}
			rows, err := reader.db.Query(`SELECT t.id, t.length, (SELECT count(*) FROM steps s WHERE s.trace_id = t.id) FROM traces t`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, length, steps int
				rows.Scan(&id, &length, &steps)
				if steps != length {
					t.Fatalf("trace %d visible with %d of its %d steps", id, steps, length)
				}
				seen++
			}
			rows.Close()
			polls++
		}
	})
}

func TestAddResult(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		loop, walk := newSynth(10).trace(3), newSynth(11).trace(4)
		walk.Violation = nil
		res := &engine.Result{States: 10, Transitions: 20, Depth: 3, Violations: []*engine.Trace{loop}, Walk: walk}
		run, ids, err := s.AddResult(Run{Model: "aodv", Start: time.Unix(1, 0)}, res, time.Unix(2, 0))
		if err != nil || len(ids) != 2 {
			t.Fatal(ids, err)
		}
		r, _ := s.Run(run)
		if r.Outcome != "violation" || r.States != 10 || r.Depth != 3 {
			t.Errorf("run %+v", r)
		}
		if ti, _ := s.TraceInfo(ids[1]); ti.Kind != "" || ti.Run != run || !ti.Found.Equal(time.Unix(2, 0)) {
			t.Errorf("walk %+v", ti)
		}
	})
}

// A scenario's trace is stored after the violations, with kind scenario, and the run's outcome is
// still that of its violations.
func TestAddResultScenarios(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		found := newSynth(12).trace(2)
		found.Violation = engine.NewViolation("scenario", "route found", "reached", "")
		res := &engine.Result{States: 5, Scenarios: []engine.ScenarioResult{{Name: "none"}, {Name: "route found", Reached: true, Trace: found}}}
		run, ids, err := s.AddResult(Run{Model: "aodv"}, res, time.Unix(2, 0))
		if err != nil || len(ids) != 1 {
			t.Fatal(ids, err)
		}
		if r, _ := s.Run(run); r.Outcome != "ok" {
			t.Errorf("run outcome %q, want ok", r.Outcome)
		}
		if ti, _ := s.TraceInfo(ids[0]); ti.Kind != "scenario" || ti.Name != "route found" || ti.Length != 2 {
			t.Errorf("scenario trace %+v", ti)
		}
	})
}

// A minimized trace is stored with the original's run and says which trace it was made from.
func TestAddDerived(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		run, err := s.AddRun(Run{Model: "aodv"})
		if err != nil {
			t.Fatal(err)
		}
		long := newSynth(5).trace(20)
		orig, err := s.AddTrace(run, long, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		short := newSynth(5).trace(6)
		id, err := s.AddDerived(orig, Minimized, short, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		ti, err := s.TraceInfo(id)
		if err != nil {
			t.Fatal(err)
		}
		if ti.From != orig || ti.How != Minimized || ti.Run != run || ti.Length != 6 {
			t.Errorf("derived trace: from %d how %q run %d length %d; want from %d, %q, run %d, 6 steps", ti.From, ti.How, ti.Run, ti.Length, orig, Minimized, run)
		}
		if oi, _ := s.TraceInfo(orig); oi.From != 0 || oi.How != "" {
			t.Errorf("the original says it was derived: from %d how %q", oi.From, oi.How)
		}
		if _, err := s.AddDerived(orig+100, Minimized, short, time.Time{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("derived from a trace that is not stored: %v", err)
		}
	})
}
