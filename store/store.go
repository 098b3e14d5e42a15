package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// A Store is an open trace database: an SQLite file, or a PostgreSQL database named by a URL
// (postgres.go). It is safe for concurrent use, and several processes may have the same
// database open: SQLite's WAL mode lets readers go on while one writer writes, and PostgreSQL
// is made for it.
type Store struct {
	db   *sql.DB
	path string // as it may be printed: a URL without its password
	d    dialect

	mu    sync.Mutex
	heads map[int64]*traceHead // decoded string tables of recently read traces; traces never change
}

// DefaultPath is where a workspace keeps its traces: .cmc/traces.db under dir.
func DefaultPath(dir string) string { return filepath.Join(dir, ".cmc", "traces.db") }

// The DSN pragmas run on every new connection of the pool. synchronous=FULL makes a commit
// durable before it returns, even against power loss: a trace reported stored is stored. In WAL
// mode NORMAL would survive a killed process too but could lose the last commits on power loss;
// FULL costs one fsync per trace, and a trace is one transaction, so it costs little here.
// _txlock=immediate starts every write transaction with the write lock, so two writers wait
// (busy_timeout) instead of failing when one upgrades a read to a write.
const dsnParams = "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" +
	"&_pragma=foreign_keys(1)&_txlock=immediate"

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// Open opens the trace database at path, creating it (and its directory) if needed and bringing
// its schema up to date. It refuses, with an error that says why and changes nothing, a file
// that is not a cmcdap trace database or that a newer cmcdap wrote. A path that is a
// postgres:// URL opens that PostgreSQL database instead (it must exist; the schema is
// created in it).
func Open(path string) (*Store, error) {
	if IsURL(path) {
		return openPostgres(path, false)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := probe(path, abs); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+escapePath(abs)+dsnParams)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, d: sqliteDialect{}, heads: map[int64]*traceHead{}}
	if err := s.setUp(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database. In WAL mode the last connection to close checkpoints the log into
// the database file and removes it.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", s.path, err)
	}
	return nil
}

// Path returns the path the store was opened with; for a URL, without its password.
func (s *Store) Path() string { return s.path }

// probe looks at an existing file before the pool opens it, because opening with the DSN
// pragmas would switch another program's database to WAL mode: a change we must not make to
// a file that is not ours.
func probe(path, abs string) error {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("store: open %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("store: open %s: %w (it is a directory)", path, ErrNotStore)
	case fi.Size() == 0:
		return nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	head := make([]byte, len(sqliteMagic))
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || string(head) != sqliteMagic {
		return fmt.Errorf("store: open %s: %w (it is not an SQLite database)", path, ErrNotStore)
	}
	db, err := sql.Open("sqlite", "file:"+escapePath(abs)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		return fmt.Errorf("store: open %s: %w (%v)", path, ErrNotStore, err)
	}
	defer conn.Close()
	_, err = sqliteDialect{}.version(context.Background(), conn, path)
	return err
}

// setUp checks that the pragmas took (a file system without shared memory, for one, cannot do
// WAL), then migrates.
func (s *Store) setUp() error {
	ctx := context.Background()
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("store: open %s: %w", s.path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("store: open %s: journal mode is %q, not wal: put the database on a local file system", s.path, mode)
	}
	var fk int
	if err := s.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return fmt.Errorf("store: open %s: %w", s.path, err)
	}
	if fk != 1 {
		return fmt.Errorf("store: open %s: foreign keys are off", s.path)
	}
	return s.migrate(ctx)
}

// escapePath makes a file name safe inside a SQLite URI.
func escapePath(p string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(p))
}

// timeLayout stores times as fixed-width UTC text: readable in the sqlite3 shell, and sorting as
// text sorts them in time.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(timeLayout)
}

func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return time.Parse(timeLayout, s.String)
}

// orNull stores empty blobs and strings as NULL.
func orNull[T []byte | string](v T) any {
	if len(v) == 0 {
		return nil
	}
	return v
}

// inTx runs f in a write transaction and commits it, or rolls back when f fails. f wraps its
// own errors; those of beginning and committing are wrapped with what, as "store: WHAT: ...".
func (s *Store) inTx(ctx context.Context, what string, f func(tx writeTx) error) error {
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	if err := s.d.lockWrites(ctx, t); err != nil {
		t.Rollback()
		return fmt.Errorf("store: %s: %w", what, err)
	}
	if err := f(writeTx{t, s.d}); err != nil {
		t.Rollback()
		return err
	}
	if err := t.Commit(); err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	return nil
}

// scanner is a row or rows.
type scanner interface{ Scan(dest ...any) error }
