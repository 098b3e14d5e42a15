package store

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// A traceHead is what reading any step of a trace needs: its length and string table.
type traceHead struct {
	length int
	strs   []string
}

// maxHeads bounds the cache of string tables.
const maxHeads = 32

func (s *Store) head(id int64) (*traceHead, error) {
	s.mu.Lock()
	h := s.heads[id]
	s.mu.Unlock()
	if h != nil {
		return h, nil
	}
	var blob []byte
	h = &traceHead{}
	err := s.queryRow(`SELECT length, strings FROM traces WHERE id = ?`, id).Scan(&h.length, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: trace %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: trace %d: %w", id, err)
	}
	if h.strs, err = decodeStrings(blob); err != nil {
		return nil, fmt.Errorf("store: trace %d: %w", id, err)
	}
	s.mu.Lock()
	if len(s.heads) >= maxHeads {
		for k := range s.heads {
			delete(s.heads, k)
			break
		}
	}
	s.heads[id] = h
	s.mu.Unlock()
	return h, nil
}

// StepAt returns step n (1 to the trace's length) of trace id.
func (s *Store) StepAt(id int64, n int) (engine.Step, error) {
	steps, err := s.Steps(id, n, n)
	if err != nil {
		return engine.Step{}, err
	}
	return steps[0], nil
}

// Steps returns steps from to to (1-based, inclusive) of trace id.
func (s *Store) Steps(id int64, from, to int) ([]engine.Step, error) {
	h, err := s.head(id)
	if err != nil {
		return nil, err
	}
	if from > to {
		return nil, nil
	}
	if from < 1 || to > h.length {
		return nil, fmt.Errorf("store: steps %d to %d of trace %d: %w (it has steps 1 to %d)", from, to, id, ErrNotFound, h.length)
	}
	rows, err := s.query(`SELECT n, proc, event, hash, site, choices, labels, notes, changes FROM steps
		WHERE trace_id = ? AND n BETWEEN ? AND ? ORDER BY n`, id, from, to)
	if err != nil {
		return nil, fmt.Errorf("store: steps of trace %d: %w", id, err)
	}
	defer rows.Close()
	out := make([]engine.Step, 0, to-from+1)
	for rows.Next() {
		var n int
		var hash int64
		var site uint64
		var choices, labels, notes, changes []byte
		out = append(out, engine.Step{})
		step := &out[len(out)-1]
		if err := rows.Scan(&n, &step.Proc, &step.Event, &hash, &site, &choices, &labels, &notes, &changes); err != nil {
			return nil, fmt.Errorf("store: step %d of trace %d: %w", from+len(out)-1, id, err)
		}
		if want := from + len(out) - 1; n != want {
			return nil, fmt.Errorf("store: step %d of trace %d: %w: missing", want, id, errCorrupt)
		}
		step.Hash = engine.Hash(hash)
		r := reader{strs: h.strs}
		step.Site = r.lookup(site)
		if r.err == nil {
			step.Choices, r.err = decodeChoices(choices, h.strs)
		}
		if r.err == nil {
			r.err = decodeLabels(labels, h.strs, step.Choices)
		}
		if r.err == nil {
			step.Notes, r.err = decodeNotes(notes, h.strs)
		}
		if r.err == nil {
			step.Changes, r.err = decodeChanges(changes, h.strs)
		}
		if r.err != nil {
			return nil, fmt.Errorf("store: step %d of trace %d: %w", n, id, r.err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: steps of trace %d: %w", id, err)
	}
	if len(out) != to-from+1 {
		return nil, fmt.Errorf("store: step %d of trace %d: %w: missing", from+len(out), id, errCorrupt)
	}
	return out, nil
}

// State returns the full state after step n of trace id (0: the initial state): the nearest
// checkpoint at or before n with the changes of the steps after it applied (see Apply).
func (s *Store) State(id int64, n int) ([]canon.Leaf, error) {
	h, err := s.head(id)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > h.length {
		return nil, fmt.Errorf("store: state %d of trace %d: %w (it has states 0 to %d)", n, id, ErrNotFound, h.length)
	}
	var at int
	var blob []byte
	err = s.queryRow(`SELECT n, leaves FROM checkpoints WHERE trace_id = ? AND n <= ? ORDER BY n DESC LIMIT 1`,
		id, n).Scan(&at, &blob)
	if err != nil {
		return nil, fmt.Errorf("store: state %d of trace %d: checkpoint: %w", n, id, err)
	}
	leaves, err := decodeLeaves(blob, h.strs)
	if err != nil {
		return nil, fmt.Errorf("store: state %d of trace %d: checkpoint %d: %w", n, id, at, err)
	}
	if at == n {
		return leaves, nil
	}
	rows, err := s.query(`SELECT n, changes FROM steps WHERE trace_id = ? AND n > ? AND n <= ? ORDER BY n`, id, at, n)
	if err != nil {
		return nil, fmt.Errorf("store: state %d of trace %d: %w", n, id, err)
	}
	defer rows.Close()
	f := newFold(leaves)
	next := at + 1
	for rows.Next() {
		var k int
		var blob []byte
		if err := rows.Scan(&k, &blob); err != nil {
			return nil, fmt.Errorf("store: state %d of trace %d: %w", n, id, err)
		}
		if k != next {
			return nil, fmt.Errorf("store: state %d of trace %d: step %d: %w: missing", n, id, next, errCorrupt)
		}
		cs, err := decodeChanges(blob, h.strs)
		if err != nil {
			return nil, fmt.Errorf("store: state %d of trace %d: step %d: %w", n, id, k, err)
		}
		f.apply(cs)
		next++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: state %d of trace %d: %w", n, id, err)
	}
	if next != n+1 {
		return nil, fmt.Errorf("store: state %d of trace %d: step %d: %w: missing", n, id, next, errCorrupt)
	}
	return f.leaves(), nil
}
