package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cmc-go/cmc/engine"
)

// RunCoverage is what a run exercised: how often each event ran and, when the check measured it
// (Measured), the coverage of the user's code with its growth.
type RunCoverage struct {
	Run         int64              `json:"run"`
	Measured    bool               `json:"measured"`
	Transitions int64              `json:"transitions"`
	Expanded    int64              `json:"expanded"`
	Events      []engine.EventRuns `json:"events"`
	Coverage    engine.Coverage    `json:"coverage"`
}

// Branching is the mean number of transitions per expanded state.
func (c *RunCoverage) Branching() float64 {
	r := engine.Result{Transitions: c.Transitions, Expanded: c.Expanded}
	return r.Branching()
}

type coverageDetail struct {
	Files    []engine.FileCoverage    `json:"files"`
	Handlers []engine.HandlerCoverage `json:"handlers"`
	Events   []engine.EventRuns       `json:"events"`
}

// addCoverage stores what res measured for run runID, in tx.
func addCoverage(tx writeTx, runID int64, res *engine.Result) error {
	c := res.Coverage
	if c == nil {
		c = &engine.Coverage{}
	}
	detail, err := json.Marshal(coverageDetail{Files: c.Files, Handlers: c.Handlers, Events: res.Events})
	if err != nil {
		return fmt.Errorf("store: add coverage of run %d: %w", runID, err)
	}
	if _, err := tx.Exec(`INSERT INTO run_coverage (run_id, measured, statements, covered, expanded, detail) VALUES (?, ?, ?, ?, ?, ?)`,
		runID, flag(res.Coverage != nil), c.Statements, c.Covered, res.Expanded, string(detail)); err != nil {
		return fmt.Errorf("store: add coverage of run %d: %w", runID, err)
	}
	for _, p := range c.Growth {
		if _, err := tx.Exec(`INSERT INTO coverage_growth (run_id, transitions, covered, lines) VALUES (?, ?, ?, ?)
			ON CONFLICT (run_id, transitions) DO UPDATE SET covered = excluded.covered, lines = excluded.lines`,
			runID, p.Transitions, p.Covered, p.Lines); err != nil {
			return fmt.Errorf("store: add coverage growth of run %d: %w", runID, err)
		}
	}
	return nil
}

// AddCoverage stores what run runID exercised (res's events, and its coverage if measured); a
// result that ran no events stores nothing.
func (s *Store) AddCoverage(runID int64, res *engine.Result) error {
	if res.Coverage == nil && len(res.Events) == 0 {
		return nil
	}
	return s.inTx(context.Background(), "add coverage", func(tx writeTx) error { return addCoverage(tx, runID, res) })
}

// Coverage returns what run id measured; ErrNotFound when it did not measure coverage.
func (s *Store) Coverage(id int64) (*RunCoverage, error) {
	c := &RunCoverage{Run: id}
	var detail string
	err := s.queryRow(`SELECT c.measured, c.statements, c.covered, c.expanded, c.detail, r.transitions
		FROM run_coverage c JOIN runs r ON r.id = c.run_id WHERE c.run_id = ?`, id).
		Scan(&c.Measured, &c.Coverage.Statements, &c.Coverage.Covered, &c.Expanded, &detail, &c.Transitions)
	if errors.Is(err, sql.ErrNoRows) {
		if _, rerr := s.Run(id); rerr != nil {
			return nil, rerr
		}
		return nil, fmt.Errorf("store: coverage of run %d: %w (the run was stored before cmc recorded it)", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: coverage of run %d: %w", id, err)
	}
	var d coverageDetail
	if err := json.Unmarshal([]byte(detail), &d); err != nil {
		return nil, fmt.Errorf("store: coverage of run %d: %w", id, err)
	}
	c.Coverage.Files, c.Coverage.Handlers, c.Events = d.Files, d.Handlers, d.Events
	rows, err := s.query(`SELECT transitions, covered, lines FROM coverage_growth WHERE run_id = ? ORDER BY transitions`, id)
	if err != nil {
		return nil, fmt.Errorf("store: coverage growth of run %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var p engine.CoveragePoint
		if err := rows.Scan(&p.Transitions, &p.Covered, &p.Lines); err != nil {
			return nil, fmt.Errorf("store: coverage growth of run %d: %w", id, err)
		}
		c.Coverage.Growth = append(c.Coverage.Growth, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: coverage growth of run %d: %w", id, err)
	}
	return c, nil
}

// LatestCoverage is the last run that measured coverage (check -cover); ErrNotFound when none
// did.
func (s *Store) LatestCoverage() (int64, error) {
	var id int64
	err := s.queryRow(`SELECT run_id FROM run_coverage WHERE measured <> 0 ORDER BY run_id DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: no run measured coverage: %w (check with -cover, or the launch attribute coverage: true)", ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: latest coverage: %w", err)
	}
	return id, nil
}
