package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// IsURL reports whether target names a PostgreSQL database (postgres://... or
// postgresql://...) rather than an SQLite file.
func IsURL(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// Printable is target as it may be shown: a URL loses its password (from the user info and
// from a password parameter); a file path is itself. Store.Path returns it, so logs, run
// summaries and command output never carry a password.
func Printable(target string) string {
	if !IsURL(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		scheme, _, _ := strings.Cut(target, "://")
		return scheme + "://(a URL that does not parse)"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
		q.Del("password")
		q.Del("sslpassword")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// connectTimeout bounds how long opening waits for a server that does not answer, when the URL
// sets no connect_timeout: an unreachable database is an error, not a hang.
const connectTimeout = 10 * time.Second

// openPostgres opens the database at a postgres:// URL and, unless readOnly, brings its
// schema up to date. The password comes from the URL, else PGPASSWORD, else ~/.pgpass (or
// PGPASSFILE), as libpq takes it; pgx reads them.
func openPostgres(target string, readOnly bool) (*Store, error) {
	shown := Printable(target)
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %s; write it as postgres://USER@HOST:PORT/DATABASE", shown, oneLine(err))
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on" // the server refuses writes
	}
	db := stdlib.OpenDB(*cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.ConnectTimeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, connectError(shown, cfg.Password, cfg.ConnectTimeout, err)
	}
	s := &Store{db: db, path: shown, d: postgresDialect{}, heads: map[int64]*traceHead{}}
	if readOnly {
		err = s.checkVersion(ctx)
	} else {
		err = s.migrate(ctx)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// connectError says in one line why the server at shown would not let us in, and what to do.
func connectError(shown, password string, timeout time.Duration, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("store: cannot log in to %s: %s; give the password in PGPASSWORD, ~/.pgpass or the URL", shown, pe.Message)
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("store: cannot open %s: %s; create it first (createdb)", shown, pe.Message)
		}
	}
	// pgx tells of every address and TLS mode it tried; the first network error says it all.
	var ne *net.OpError
	msg := oneLine(err)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("no answer within %s (connect_timeout)", timeout)
	case errors.As(err, &ne):
		msg = ne.Error()
	}
	if len(password) >= 3 { // pgx does not print it; this makes sure
		msg = strings.ReplaceAll(msg, password, "xxxxx")
	}
	return fmt.Errorf("store: cannot reach %s: %s; is PostgreSQL running there?", shown, msg)
}

// oneLine is err's message on one line (pgx puts each address it tried on a line of its own).
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// postgresDialect is the store in a PostgreSQL database, shared by the processes of a cluster.
type postgresDialect struct{}

func (postgresDialect) rebind(query string) string { return dollarParams(query) }

// The migrations' SQLite types, as PostgreSQL spells them. INTEGER is 64 bits in SQLite and 32
// in PostgreSQL, so every INTEGER becomes BIGINT (state hashes use all 64).
var pgTypes = []struct {
	re *regexp.Regexp
	to string
}{
	{regexp.MustCompile(`\bINTEGER PRIMARY KEY AUTOINCREMENT\b`), "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"},
	{regexp.MustCompile(`\bINTEGER\b`), "BIGINT"},
	{regexp.MustCompile(`\bBLOB\b`), "BYTEA"},
	{regexp.MustCompile(`\)\s*WITHOUT ROWID`), ")"},
}

func (postgresDialect) schema(migration string) string {
	for _, r := range pgTypes {
		migration = r.re.ReplaceAllString(migration, r.to)
	}
	return migration
}

// pgSchemaTable holds what SQLite keeps in the file's header: that the database is ours
// (application) and its schema version.
const pgSchemaTable = "cmc_schema"

func (postgresDialect) version(ctx context.Context, q querier, path string) (int, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL", pgSchemaTable).Scan(&exists); err != nil {
		return 0, fmt.Errorf("store: open %s: %w", path, err)
	}
	if exists {
		var app, ver int64
		err := q.QueryRowContext(ctx, "SELECT application, version FROM "+pgSchemaTable).Scan(&app, &ver)
		switch {
		case err != nil:
			return 0, fmt.Errorf("store: open %s: %w (%s: %v)", path, ErrNotStore, pgSchemaTable, err)
		case app != applicationID:
			return 0, fmt.Errorf("store: open %s: %w (another program's: application id %#x)", path, ErrNotStore, app)
		case ver > int64(len(migrations)):
			return 0, &newerSchemaError{path: path, have: int(ver), know: len(migrations)}
		}
		return int(ver), nil
	}
	tables, err := names(q.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() ORDER BY table_name`))
	if err != nil {
		return 0, fmt.Errorf("store: open %s: %w", path, err)
	}
	if len(tables) > 0 {
		return 0, fmt.Errorf("store: open %s: %w (another program's: it has tables %s; give cmcdap a database of its own)", path, ErrNotStore, strings.Join(tables, ", "))
	}
	return 0, nil
}

func (postgresDialect) setVersion(ctx context.Context, tx *sql.Tx, ver int) error {
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"CREATE TABLE IF NOT EXISTS " + pgSchemaTable + " (application BIGINT NOT NULL, version BIGINT NOT NULL)", nil},
		{"DELETE FROM " + pgSchemaTable, nil},
		{"INSERT INTO " + pgSchemaTable + " (application, version) VALUES ($1, $2)", []any{applicationID, ver}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// lockWrites takes a transaction-scoped advisory lock, the same key for every writer of the
// database: writers of a cluster go one at a time, as SQLite's do, so two processes starting
// together do not both create the schema, and a trace found by two workers is stored once.
func (postgresDialect) lockWrites(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(applicationID))
	return err
}

// pgUniqueViolation is SQLSTATE unique_violation.
const pgUniqueViolation = "23505"

func (postgresDialect) uniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == pgUniqueViolation
}
