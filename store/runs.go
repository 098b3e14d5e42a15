package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cmc-go/cmc/engine"
)

// A Run is one check of a model: what was checked, how, and what came of it. Its traces refer
// to it by ID.
type Run struct {
	ID       int64             `json:"id"`
	Model    string            `json:"model"`
	Package  string            `json:"package,omitempty"`
	Params   map[string]string `json:"params,omitempty"`
	Settings json.RawMessage   `json:"settings,omitempty"` // the search settings, as JSON
	Code     string            `json:"code,omitempty"`     // identity of the checked code, e.g. a hash of its sources
	Start    time.Time         `json:"start"`
	End      time.Time         `json:"end,omitzero"` // zero while running
	// From the search's result:
	States      int64  `json:"states"`
	Transitions int64  `json:"transitions"`
	Depth       int    `json:"depth"`
	Complete    bool   `json:"complete"`
	Outcome     string `json:"outcome,omitempty"` // chosen by the caller: ok, violation, cancelled, error...
}

// SetResult copies the counts of a search's result into the run.
func (r *Run) SetResult(res *engine.Result) {
	r.States, r.Transitions, r.Depth, r.Complete = res.States, res.Transitions, res.Depth, res.Complete
}

// AddRun stores a run and returns its id. The caller gives the times: the store reads no clock
// for runs.
func (s *Store) AddRun(r Run) (int64, error) {
	params, settings, err := runJSON(r)
	if err != nil {
		return 0, fmt.Errorf("store: add run: %w", err)
	}
	var id int64
	err = s.inTx(context.Background(), "add run", func(tx writeTx) error {
		id, err = tx.insertID(`INSERT INTO runs (model, package, params, settings, code, started_at, ended_at,
			states, transitions, depth, complete, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.Model, r.Package, params, settings, r.Code, formatTime(r.Start), formatTime(r.End),
			r.States, r.Transitions, r.Depth, flag(r.Complete), r.Outcome)
		if err != nil {
			return fmt.Errorf("store: add run: %w", err)
		}
		return nil
	})
	return id, err
}

// EndRun records how run r.ID ended: its end time, counts and outcome.
func (s *Store) EndRun(r Run) error {
	return s.inTx(context.Background(), "end run", func(tx writeTx) error {
		res, err := tx.Exec(`UPDATE runs SET ended_at = ?, states = ?, transitions = ?, depth = ?, complete = ?,
			outcome = ? WHERE id = ?`,
			formatTime(r.End), r.States, r.Transitions, r.Depth, flag(r.Complete), r.Outcome, r.ID)
		if err != nil {
			return fmt.Errorf("store: end run %d: %w", r.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: end run %d: %w", r.ID, ErrNotFound)
		}
		return nil
	})
}

func runJSON(r Run) (params, settings any, err error) {
	if len(r.Params) > 0 {
		b, err := json.Marshal(r.Params)
		if err != nil {
			return nil, nil, err
		}
		params = string(b)
	}
	if len(r.Settings) > 0 {
		if !json.Valid(r.Settings) {
			return nil, nil, errors.New("settings are not valid JSON")
		}
		settings = string(r.Settings)
	}
	return params, settings, nil
}

const runColumns = `id, model, package, params, settings, code, started_at, ended_at, states, transitions,
	depth, complete, outcome`

// Run returns run id.
func (s *Store) Run(id int64) (Run, error) {
	r, err := scanRun(s.queryRow(`SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return Run{}, fmt.Errorf("store: run %d: %w", id, err)
	}
	return r, nil
}

// Runs lists all runs, oldest first.
func (s *Store) Runs() ([]Run, error) {
	rows, err := s.query(`SELECT ` + runColumns + ` FROM runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: list runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list runs: %w", err)
	}
	return out, nil
}

func scanRun(sc scanner) (Run, error) {
	var r Run
	var params, settings, start, end sql.NullString
	err := sc.Scan(&r.ID, &r.Model, &r.Package, &params, &settings, &r.Code, &start, &end,
		&r.States, &r.Transitions, &r.Depth, &r.Complete, &r.Outcome)
	if err != nil {
		return r, err
	}
	if r.Params, err = parseParams(params); err != nil {
		return r, err
	}
	if settings.Valid {
		r.Settings = json.RawMessage(settings.String)
	}
	if r.Start, err = parseTime(start); err != nil {
		return r, err
	}
	r.End, err = parseTime(end)
	return r, err
}

func parseParams(s sql.NullString) (map[string]string, error) {
	if !s.Valid {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(s.String), &m); err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	return m, nil
}
