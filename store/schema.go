package store

import (
	"context"
	"fmt"
)

// applicationID marks the file as ours in its header (PRAGMA application_id): "CMCT".
const applicationID = 0x434d4354

// migrations[i] takes the schema from version i to i+1 (PRAGMA user_version). Append only: a
// released migration is never edited, since databases out there were made by it.
var migrations = []string{
	// 1: runs, traces, steps, checkpoints, bookmarks.
	`
CREATE TABLE runs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	model       TEXT NOT NULL,
	package     TEXT NOT NULL DEFAULT '',
	params      TEXT,                       -- JSON object of strings
	settings    TEXT,                       -- JSON, the search settings as the caller gave them
	code        TEXT NOT NULL DEFAULT '',   -- identity of the checked code, e.g. a hash of its sources
	started_at  TEXT,                       -- UTC, fixed-width RFC 3339 with nanoseconds
	ended_at    TEXT,
	states      INTEGER NOT NULL DEFAULT 0,
	transitions INTEGER NOT NULL DEFAULT 0,
	depth       INTEGER NOT NULL DEFAULT 0,
	complete    INTEGER NOT NULL DEFAULT 0,
	outcome     TEXT NOT NULL DEFAULT ''
);

CREATE TABLE traces (
	id        INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, so a cached trace stays valid
	run_id    INTEGER REFERENCES runs(id) ON DELETE SET NULL,
	model     TEXT NOT NULL,
	params    TEXT,                 -- JSON object of strings
	kind      TEXT,                 -- the violation's kind; NULL: no violation (a kept random walk)
	name      TEXT NOT NULL DEFAULT '',
	message   TEXT NOT NULL DEFAULT '',
	site      TEXT NOT NULL DEFAULT '',
	signature TEXT,                 -- equal for the same violation found again
	length    INTEGER NOT NULL,     -- number of steps
	init_hash INTEGER NOT NULL,
	strings   BLOB NOT NULL,        -- the trace's string table (codec.go)
	found_at  TEXT NOT NULL
);
CREATE INDEX traces_by_signature ON traces(model, signature);
CREATE INDEX traces_by_run ON traces(run_id);

-- Step n (1-based) of a trace: the transition and what it changed.
CREATE TABLE steps (
	trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	n        INTEGER NOT NULL,
	proc     TEXT NOT NULL,
	event    TEXT NOT NULL,
	hash     INTEGER NOT NULL,      -- state hash after the step, as a signed 64-bit integer
	site     INTEGER NOT NULL,      -- the handler's file:line, a string of the table
	choices  BLOB,                  -- encoded as in codec.go, NULL when empty
	notes    BLOB,
	changes  BLOB,
	PRIMARY KEY (trace_id, n)
) WITHOUT ROWID;

-- The full state after step n, for n = 0 (the initial state) and every multiple of 64.
CREATE TABLE checkpoints (
	trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	n        INTEGER NOT NULL,
	leaves   BLOB,
	PRIMARY KEY (trace_id, n)
) WITHOUT ROWID;

CREATE TABLE bookmarks (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	trace_id   INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	step       INTEGER NOT NULL,    -- 0: the initial state
	name       TEXT NOT NULL UNIQUE,
	note       TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL
);
CREATE INDEX bookmarks_by_trace ON bookmarks(trace_id);
`,
	// 2: which roots of a trace's state are environment components, not processes.
	`ALTER TABLE traces ADD COLUMN env TEXT`,
	// 3: a trace made from another (a minimized one): which, and how.
	`ALTER TABLE traces ADD COLUMN derived_from INTEGER REFERENCES traces(id) ON DELETE SET NULL;
ALTER TABLE traces ADD COLUMN derivation TEXT NOT NULL DEFAULT '';`,
	// 4: a trace's processes, as recorded (before, they were the roots not in env).
	`ALTER TABLE traces ADD COLUMN procs TEXT`,
	// 5: what each Choose value of a step means (cmc.ChooseOf), encoded as in codec.go.
	`ALTER TABLE steps ADD COLUMN labels BLOB`,
	// 6: what a run exercised: the coverage of the user's code, its growth, and the runs of each
	// event (coverage.go).
	`
CREATE TABLE run_coverage (
	run_id     INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	measured   INTEGER NOT NULL,  -- 1: checked with coverage (statements, covered, files and handlers)
	statements INTEGER NOT NULL,
	covered    INTEGER NOT NULL,
	expanded   INTEGER NOT NULL,  -- states expanded: transitions / expanded is the branching factor
	detail     TEXT NOT NULL      -- JSON: files with their blocks, handlers, events
);
-- Covered statements and lines after a number of transitions of the run.
CREATE TABLE coverage_growth (
	run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	transitions INTEGER NOT NULL,
	covered     INTEGER NOT NULL,
	lines       INTEGER NOT NULL,
	PRIMARY KEY (run_id, transitions)
) WITHOUT ROWID;`,
}

// SchemaVersion is the schema this code writes.
func SchemaVersion() int { return len(migrations) }

// migrate brings the schema up to date in one write transaction, so two processes opening a
// new database at once do not both create it, and a crash leaves the old version whole.
func (s *Store) migrate(ctx context.Context) error {
	return s.inTx(ctx, "open "+s.path, func(t writeTx) error {
		ver, err := s.d.version(ctx, t.tx, s.path)
		if err != nil {
			return err
		}
		if ver == len(migrations) {
			return nil
		}
		for i := ver; i < len(migrations); i++ {
			if _, err := t.tx.ExecContext(ctx, s.d.schema(migrations[i])); err != nil {
				return fmt.Errorf("store: migrate %s to schema %d: %w", s.path, i+1, err)
			}
		}
		if err := s.d.setVersion(ctx, t.tx, len(migrations)); err != nil {
			return fmt.Errorf("store: migrate %s: %w", s.path, err)
		}
		return nil
	})
}

// checkVersion refuses a database whose schema is not the one this code reads, for a store
// opened read-only, which cannot migrate it.
func (s *Store) checkVersion(ctx context.Context) error {
	ver, err := s.d.version(ctx, s.db, s.path)
	if err != nil {
		return err
	}
	if ver != len(migrations) {
		return fmt.Errorf("store: open %s read-only: it has schema %d and this cmcdap reads %d: open it once where it can be written (e.g. cmcdap check -db %s) to upgrade it", s.path, ver, len(migrations), s.path)
	}
	return nil
}
