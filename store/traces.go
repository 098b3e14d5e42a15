package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cmc-go/cmc/engine"
)

// CheckpointEvery is how often a trace stores its full state: after steps 0, 64, 128...
// State(n) applies at most CheckpointEvery-1 diffs to the nearest checkpoint.
const CheckpointEvery = 64

// TraceInfo describes a stored trace without its steps.
type TraceInfo struct {
	ID     int64             `json:"id"`
	Run    int64             `json:"run,omitempty"` // 0: stored outside a run
	Model  string            `json:"model"`
	Params map[string]string `json:"params,omitempty"`
	// The violation; Kind is empty for a trace without one (a kept random walk).
	Kind      string      `json:"kind,omitempty"`
	Name      string      `json:"name,omitempty"`
	Message   string      `json:"message,omitempty"`
	Site      string      `json:"site,omitempty"`
	Signature string      `json:"signature,omitempty"`
	Length    int         `json:"length"` // steps
	InitHash  engine.Hash `json:"init_hash"`
	Procs     []string    `json:"procs,omitempty"` // the processes; empty for traces stored before schema 4
	Env       []string    `json:"env,omitempty"`   // environment components
	Found     time.Time   `json:"found"`
	// Seen counts the stored traces of this model with this signature, this one included: more
	// than 1 means the same violation was found before (or since). FirstSeen is the oldest of them.
	Seen      int   `json:"seen"`
	FirstSeen int64 `json:"first_seen,omitempty"`
	// From is the trace this one was made from, and How says how ("minimized"); 0 and "" for a
	// trace a check found.
	From int64  `json:"from,omitempty"`
	How  string `json:"how,omitempty"`

	violation bool // whether the trace has a violation, even one with an empty kind
}

// AddTrace stores trace t, found by run runID (0: none) at time found (zero: now), with all its
// steps in one transaction, and returns its id. A trace that is the same as a stored one (the same
// violation along the same steps: see dedup.go) is not stored again: AddTrace returns the stored
// one's id, whose TraceInfo.Run is the run that found it first. The same violation along another
// path is a new trace that shares its Signature.
func (s *Store) AddTrace(runID int64, t *engine.Trace, found time.Time) (int64, error) {
	return s.addTrace(runID, t, found, 0, "")
}

// Minimized is how a trace made by replay.Minimize is derived from its original.
const Minimized = "minimized"

// AddDerived stores trace t, made from stored trace from (how says how, e.g. Minimized), as part
// of the same run, and returns its id.
func (s *Store) AddDerived(from int64, how string, t *engine.Trace, found time.Time) (int64, error) {
	orig, err := s.TraceInfo(from)
	if err != nil {
		return 0, err
	}
	return s.addTrace(orig.Run, t, found, from, how)
}

func (s *Store) addTrace(runID int64, t *engine.Trace, found time.Time, from int64, how string) (int64, error) {
	if found.IsZero() {
		found = time.Now()
	}
	// Encode before taking the write lock, so other writers wait only for the inserts.
	enc := encodeTrace(t)
	var params any
	if len(t.Params) > 0 {
		b, err := json.Marshal(t.Params)
		if err != nil {
			return 0, fmt.Errorf("store: add trace: %w", err)
		}
		params = string(b)
	}
	var kind, signature any
	var name, msg, site string
	if v := t.Violation; v != nil {
		kind, signature, name, msg, site = v.Kind, v.Signature, v.Name, v.Message, v.Site
	}
	env, err := nameList(t.Env)
	if err != nil {
		return 0, fmt.Errorf("store: add trace: %w", err)
	}
	procs, err := nameList(t.Procs)
	if err != nil {
		return 0, fmt.Errorf("store: add trace: %w", err)
	}
	var run any
	if runID != 0 {
		run = runID
	}
	var derivedFrom any
	if from != 0 {
		derivedFrom = from
	}
	var id int64
	err = s.inTx(context.Background(), "add trace", func(tx writeTx) error {
		if from == 0 {
			same, err := sameTrace(tx, t, params)
			if err != nil {
				return fmt.Errorf("store: add trace: look for the same trace: %w", err)
			}
			if id = same; id != 0 {
				return nil
			}
		}
		id, err = tx.insertID(`INSERT INTO traces (run_id, model, params, kind, name, message, site, signature,
			length, init_hash, strings, found_at, env, derived_from, derivation, procs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			run, t.Model, params, kind, name, msg, site, signature, len(t.Steps), int64(t.InitHash),
			enc.strings, formatTime(found), env, derivedFrom, how, procs)
		if err != nil {
			return fmt.Errorf("store: add trace: %w", err)
		}
		if err := insertSteps(tx, id, enc.steps); err != nil {
			return fmt.Errorf("store: add trace: steps: %w", err)
		}
		for _, cp := range enc.checkpoints {
			if _, err := tx.Exec(`INSERT INTO checkpoints (trace_id, n, leaves) VALUES (?, ?, ?)`,
				id, cp.n, orNull(cp.leaves)); err != nil {
				return fmt.Errorf("store: add trace: checkpoint %d: %w", cp.n, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// stepsPerInsert is how many rows one INSERT writes: fewer statements is most of the speed.
const stepsPerInsert = 64

func insertSteps(tx writeTx, id int64, steps []encodedStep) error {
	const row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	full := "INSERT INTO steps (trace_id, n, proc, event, hash, site, choices, labels, notes, changes) VALUES " +
		strings.Repeat(row+", ", stepsPerInsert-1) + row
	stmt, err := tx.Prepare(full)
	if err != nil {
		return err
	}
	defer stmt.Close()
	args := make([]any, 0, 10*stepsPerInsert)
	for start := 0; start < len(steps); start += stepsPerInsert {
		chunk := steps[start:min(start+stepsPerInsert, len(steps))]
		args = args[:0]
		for i, st := range chunk {
			args = append(args, id, start+i+1, st.proc, st.event, st.hash, st.site,
				orNull(st.choices), orNull(st.labels), orNull(st.notes), orNull(st.changes))
		}
		if len(chunk) == stepsPerInsert {
			_, err = stmt.Exec(args...)
		} else {
			_, err = tx.Exec("INSERT INTO steps (trace_id, n, proc, event, hash, site, choices, labels, notes, changes) VALUES "+
				strings.Repeat(row+", ", len(chunk)-1)+row, args...)
		}
		if err != nil {
			return fmt.Errorf("step %d: %w", start+1, err)
		}
	}
	return nil
}

type encodedTrace struct {
	strings     []byte
	steps       []encodedStep
	checkpoints []checkpoint
}

type encodedStep struct {
	proc, event                     string
	hash                            int64
	site                            uint64
	choices, labels, notes, changes []byte
}

type checkpoint struct {
	n      int
	leaves []byte
}

// encodeTrace encodes the steps and folds their changes to make the checkpoints; the string
// table comes last, when every string has its number.
func encodeTrace(t *engine.Trace) encodedTrace {
	d := newDict()
	enc := encodedTrace{steps: make([]encodedStep, len(t.Steps))}
	enc.checkpoints = append(enc.checkpoints, checkpoint{0, appendLeaves(nil, d, t.Init)})
	f := newFold(t.Init)
	var arena []byte // one buffer for all step blobs, sliced: few allocations for long traces
	for i := range t.Steps {
		st := &t.Steps[i]
		e := &enc.steps[i]
		e.proc, e.event, e.hash, e.site = st.Proc, st.Event, int64(st.Hash), d.ref(st.Site)
		if len(arena) > 1<<20 {
			arena = nil
		}
		start := len(arena)
		arena = appendChoices(arena, d, st.Choices)
		e.choices = arena[start:len(arena):len(arena)]
		start = len(arena)
		arena = appendLabels(arena, d, st.Choices)
		e.labels = arena[start:len(arena):len(arena)]
		start = len(arena)
		arena = appendNotes(arena, d, st.Notes)
		e.notes = arena[start:len(arena):len(arena)]
		start = len(arena)
		arena = appendChanges(arena, d, st.Changes)
		e.changes = arena[start:len(arena):len(arena)]
		f.apply(st.Changes)
		if n := i + 1; n%CheckpointEvery == 0 {
			enc.checkpoints = append(enc.checkpoints, checkpoint{n, f.appendLeaves(nil, d)})
		}
	}
	enc.strings = encodeStrings(d.strs)
	return enc
}

const traceColumns = `t.id, t.run_id, t.model, t.params, t.kind, t.name, t.message, t.site, t.signature,
	t.length, t.init_hash, t.found_at, t.env, t.derived_from, t.derivation, t.procs,
	(SELECT count(*) FROM traces o WHERE o.model = t.model AND o.signature = t.signature),
	(SELECT min(o.id) FROM traces o WHERE o.model = t.model AND o.signature = t.signature)`

func scanTraceInfo(sc scanner) (TraceInfo, error) {
	var ti TraceInfo
	var run, first, from sql.NullInt64
	var params, kind, signature, found, env, procs sql.NullString
	var hash int64
	err := sc.Scan(&ti.ID, &run, &ti.Model, &params, &kind, &ti.Name, &ti.Message, &ti.Site, &signature,
		&ti.Length, &hash, &found, &env, &from, &ti.How, &procs, &ti.Seen, &first)
	if err != nil {
		return ti, err
	}
	ti.Run, ti.FirstSeen, ti.InitHash, ti.From = run.Int64, first.Int64, engine.Hash(hash), from.Int64
	ti.Kind, ti.violation, ti.Signature = kind.String, kind.Valid, signature.String
	if ti.Params, err = parseParams(params); err != nil {
		return ti, err
	}
	if env.Valid {
		if err := json.Unmarshal([]byte(env.String), &ti.Env); err != nil {
			return ti, fmt.Errorf("environment components %q: %w", env.String, err)
		}
	}
	if procs.Valid {
		if err := json.Unmarshal([]byte(procs.String), &ti.Procs); err != nil {
			return ti, fmt.Errorf("processes %q: %w", procs.String, err)
		}
	}
	ti.Found, err = parseTime(found)
	return ti, err
}

// TraceInfo describes trace id.
func (s *Store) TraceInfo(id int64) (TraceInfo, error) {
	ti, err := scanTraceInfo(s.queryRow(`SELECT `+traceColumns+` FROM traces t WHERE t.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return ti, fmt.Errorf("store: trace %d: %w", id, err)
	}
	return ti, nil
}

// A TraceQuery selects traces; zero fields select all.
type TraceQuery struct {
	Run       int64
	Model     string
	Signature string // with Model: the same violation found again
	Limit     int    // the newest Limit traces
}

// Traces lists the traces q selects, oldest first.
func (s *Store) Traces(q TraceQuery) ([]TraceInfo, error) {
	var where []string
	var args []any
	if q.Run != 0 {
		where, args = append(where, "t.run_id = ?"), append(args, q.Run)
	}
	if q.Model != "" {
		where, args = append(where, "t.model = ?"), append(args, q.Model)
	}
	if q.Signature != "" {
		where, args = append(where, "t.signature = ?"), append(args, q.Signature)
	}
	query := `SELECT ` + traceColumns + ` FROM traces t`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY t.id DESC"
	if q.Limit > 0 {
		query += " LIMIT ?"
		args = append(args, q.Limit)
	}
	rows, err := s.query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list traces: %w", err)
	}
	defer rows.Close()
	var out []TraceInfo
	for rows.Next() {
		ti, err := scanTraceInfo(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list traces: %w", err)
		}
		out = append(out, ti)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list traces: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Trace returns the whole of trace id, as it was stored: for replay.
func (s *Store) Trace(id int64) (*engine.Trace, TraceInfo, error) {
	ti, err := s.TraceInfo(id)
	if err != nil {
		return nil, ti, err
	}
	init, err := s.State(id, 0)
	if err != nil {
		return nil, ti, err
	}
	steps, err := s.Steps(id, 1, ti.Length)
	if err != nil {
		return nil, ti, err
	}
	t := &engine.Trace{Model: ti.Model, Params: ti.Params, InitHash: ti.InitHash, Init: init, Procs: ti.Procs, Env: ti.Env, Steps: steps}
	if ti.violation {
		t.Violation = &engine.Violation{Kind: ti.Kind, Name: ti.Name, Message: ti.Message, Site: ti.Site,
			Signature: ti.Signature}
	}
	return t, ti, nil
}

// nameList is a list of names as the traces table keeps it: JSON, or NULL when empty.
func nameList(names []string) (any, error) {
	if len(names) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}
