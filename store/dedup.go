package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/cmc-go/cmc/engine"
)

// The same violation found twice along the same path is one trace, not two: a re-check from a
// bookmark that finds the bug again, or a check run again before the fix, links to the trace the
// user already has instead of storing a copy of it.
//
// Two traces are the same when they are of the same model with the same parameters, end in a
// violation with the same signature, start from the same initial state (its hash) and take the
// same steps: the same process runs the same event and reaches a state with the same hash, step
// by step. The Choose values are not compared: values that lead to the same states are the same
// run as far as anyone stepping through it can tell. Traces without a violation (kept random
// walks) are never merged: each was asked for.

// stepKey is what makes two steps the same.
type stepKey struct {
	proc, event string
	hash        int64
}

// stepKeys reads the steps of trace id as stepKeys.
func stepKeys(q writeTx, id int64) ([]stepKey, error) {
	rows, err := q.Query(`SELECT proc, event, hash FROM steps WHERE trace_id = ? ORDER BY n`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []stepKey
	for rows.Next() {
		var k stepKey
		if err := rows.Scan(&k.proc, &k.event, &k.hash); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

func traceStepKeys(t *engine.Trace) []stepKey {
	keys := make([]stepKey, len(t.Steps))
	for i, st := range t.Steps {
		keys[i] = stepKey{st.Proc, st.Event, int64(st.Hash)}
	}
	return keys
}

// sameTrace returns the oldest stored trace that is the same as t (see above), or 0. params is
// t's parameters as the traces table keeps them.
func sameTrace(tx writeTx, t *engine.Trace, params any) (int64, error) {
	if t.Violation == nil {
		return 0, nil
	}
	rows, err := tx.Query(`SELECT id FROM traces WHERE model = ? AND signature = ? AND length = ? AND init_hash = ?
		AND params IS NOT DISTINCT FROM ? AND kind IS NOT NULL ORDER BY id`,
		t.Model, t.Violation.Signature, len(t.Steps), int64(t.InitHash), params)
	if err != nil {
		return 0, err
	}
	var candidates []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		candidates = append(candidates, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	want := traceStepKeys(t)
	for _, id := range candidates {
		have, err := stepKeys(tx, id)
		if err != nil {
			return 0, err
		}
		if slices.Equal(have, want) {
			return id, nil
		}
	}
	return 0, nil
}

// A Duplicate is a trace PruneDuplicates removed, and the older trace it was the same as.
type Duplicate struct {
	Removed int64 `json:"removed"`
	Kept    int64 `json:"kept"`
}

// PruneDuplicates removes every trace that is the same as an older one (see above; databases
// written before AddTrace merged them may hold such copies), in one transaction. Bookmarks of a
// removed trace move to the one kept, which has the same states, and so do the traces made from
// it (minimized ones).
func (s *Store) PruneDuplicates() ([]Duplicate, error) {
	var out []Duplicate
	err := s.inTx(context.Background(), "prune duplicate traces", func(tx writeTx) error {
		rows, err := tx.Query(`SELECT id, model, coalesce(params, ''), signature, length, init_hash FROM traces
			WHERE kind IS NOT NULL AND signature IS NOT NULL ORDER BY id`)
		if err != nil {
			return fmt.Errorf("store: prune duplicate traces: %w", err)
		}
		type group struct {
			model, params, signature string
			length                   int
			init                     int64
		}
		byGroup := map[group][]int64{}
		var order []group // first seen first: the result does not depend on map order
		for rows.Next() {
			var id int64
			var g group
			if err := rows.Scan(&id, &g.model, &g.params, &g.signature, &g.length, &g.init); err != nil {
				rows.Close()
				return fmt.Errorf("store: prune duplicate traces: %w", err)
			}
			if _, ok := byGroup[g]; !ok {
				order = append(order, g)
			}
			byGroup[g] = append(byGroup[g], id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: prune duplicate traces: %w", err)
		}
		for _, g := range order {
			ids := byGroup[g]
			if len(ids) < 2 {
				continue
			}
			kept := map[int64][]stepKey{} // oldest first
			var keptOrder []int64
		next:
			for _, id := range ids {
				keys, err := stepKeys(tx, id)
				if err != nil {
					return fmt.Errorf("store: prune duplicate traces: trace %d: %w", id, err)
				}
				for _, k := range keptOrder {
					if slices.Equal(kept[k], keys) {
						if err := mergeInto(tx, id, k); err != nil {
							return fmt.Errorf("store: prune duplicate traces: trace %d: %w", id, err)
						}
						out = append(out, Duplicate{Removed: id, Kept: k})
						continue next
					}
				}
				kept[id] = keys
				keptOrder = append(keptOrder, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, d := range out {
		delete(s.heads, d.Removed)
	}
	s.mu.Unlock()
	return out, nil
}

// mergeInto deletes trace dup after moving what refers to it to trace keep.
func mergeInto(tx writeTx, dup, keep int64) error {
	for _, q := range []string{
		`UPDATE bookmarks SET trace_id = ? WHERE trace_id = ?`,
		`UPDATE traces SET derived_from = ? WHERE derived_from = ?`,
	} {
		if _, err := tx.Exec(q, keep, dup); err != nil {
			return err
		}
	}
	_, err := tx.Exec(`DELETE FROM traces WHERE id = ?`, dup)
	return err
}
