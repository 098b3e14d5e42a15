package store

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/engine"
)

// A violation found again along the same steps is the stored trace, not a copy; along other
// steps, or with other parameters, it is a trace of its own; a walk is always stored.
func TestSameTraceStoredOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		run1, _ := s.AddRun(Run{Model: "aodv"})
		run2, _ := s.AddRun(Run{Model: "aodv"})
		loop := newSynth(3).trace(70)
		first, err := s.AddTrace(run1, loop, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.AddTrace(run2, newSynth(3).trace(70), time.Time{}) // equal, not the same pointer
		if err != nil || again != first {
			t.Fatalf("the same trace again: id %d (%v), want %d", again, err, first)
		}
		if ti, _ := s.TraceInfo(first); ti.Run != run1 || ti.Seen != 1 {
			t.Errorf("the stored trace changed: %+v", ti)
		}

		otherChoices := newSynth(3).trace(70)
		otherChoices.Steps[3].Choices = nil // the same states: the same trace
		otherPath := newSynth(3).trace(70)
		otherPath.Steps[69].Hash++
		otherParams := newSynth(3).trace(70)
		otherParams.Params = map[string]string{"nodes": "5"}
		walk := newSynth(3).trace(70)
		walk.Violation = nil
		want := []int64{first, first + 1, first + 2, first + 3, first + 4}
		var got []int64
		for _, tr := range []*engine.Trace{otherChoices, otherPath, otherParams, walk, walk} {
			id, err := s.AddTrace(0, tr, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("ids of: the same states, another path, other parameters, a walk twice:\n%s", d)
		}
		derived, err := s.AddDerived(first, Minimized, loop, time.Time{})
		if err != nil || derived == first {
			t.Errorf("a derived trace is stored as made, even when it equals its original: %d, %v", derived, err)
		}
	})
}

// copyTrace stores a copy of trace id as a database written before AddTrace merged copies would
// hold it, and returns the copy's id.
func copyTrace(t *testing.T, s *Store, id int64) int64 {
	t.Helper()
	c, err := copyTraceSQL(s, id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// copyTraceSQL copies trace id with its steps and checkpoints, whatever columns the schema has.
func copyTraceSQL(s *Store, id int64) (int64, error) {
	columns := `SELECT name FROM pragma_table_info(?) WHERE name != ?`
	if _, ok := s.d.(postgresDialect); ok {
		columns = `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? AND column_name != ? ORDER BY ordinal_position`
	}
	cols := func(table, skip string) (string, error) {
		names, err := names(s.query(columns, table, skip))
		return strings.Join(names, ", "), err
	}
	tc, err := cols("traces", "id")
	if err != nil {
		return 0, err
	}
	var c int64
	if err := s.queryRow(`INSERT INTO traces (`+tc+`) SELECT `+tc+` FROM traces WHERE id = ? RETURNING id`, id).Scan(&c); err != nil {
		return 0, err
	}
	for _, table := range []string{"steps", "checkpoints"} {
		rc, err := cols(table, "trace_id")
		if err != nil {
			return 0, err
		}
		if _, err := s.db.Exec(s.d.rebind(`INSERT INTO `+table+` (trace_id, `+rc+`) SELECT ?, `+rc+` FROM `+table+` WHERE trace_id = ?`), c, id); err != nil {
			return 0, err
		}
	}
	return c, nil
}

func TestPruneDuplicates(t *testing.T) {
	eachBackend(t, func(t *testing.T, open opener) {
		s, _ := open(t)
		loop, err := s.AddTrace(0, newSynth(3).trace(70), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		detour := newSynth(3).trace(70)
		detour.Steps[69].Hash++
		other, _ := s.AddTrace(0, detour, time.Time{})
		walk := newSynth(4).trace(5)
		walk.Violation = nil
		w, _ := s.AddTrace(0, walk, time.Time{})
		w2, _ := s.AddTrace(0, walk, time.Time{})
		dup1, dup2, dupOther := copyTrace(t, s, loop), copyTrace(t, s, loop), copyTrace(t, s, other)
		if _, err := s.AddBookmark(Bookmark{Name: "on a copy", Trace: dup2, Step: 13, Created: time.Now()}); err != nil {
			t.Fatal(err)
		}
		short, err := s.AddDerived(dup1, Minimized, newSynth(3).trace(20), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.State(dup2, 13); err != nil { // cache its head, to see it forgotten
			t.Fatal(err)
		}

		got, err := s.PruneDuplicates()
		if err != nil {
			t.Fatal(err)
		}
		want := []Duplicate{{dup1, loop}, {dup2, loop}, {dupOther, other}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("pruned:\n%s", d)
		}
		var ids []int64
		all, _ := s.Traces(TraceQuery{})
		for _, ti := range all {
			ids = append(ids, ti.ID)
		}
		if want := []int64{loop, other, w, w2, short}; !slices.Equal(ids, want) {
			t.Errorf("traces left %v, want %v (walks are never merged)", ids, want)
		}
		if b, err := s.BookmarkByName("on a copy"); err != nil || b.Trace != loop || b.Step != 13 {
			t.Errorf("the bookmark of a removed copy: %+v, %v; want it on trace %d", b, err, loop)
		}
		if ti, _ := s.TraceInfo(short); ti.From != loop {
			t.Errorf("the trace minimized from a removed copy is from %d, want %d", ti.From, loop)
		}
		if _, err := s.State(dup2, 13); err == nil {
			t.Error("a removed trace still reads")
		}
		if again, err := s.PruneDuplicates(); err != nil || len(again) != 0 {
			t.Errorf("pruning again: %v, %v", again, err)
		}
	})
}
