package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
)

// sqliteDialect is the store on a file: the migrations are written in its SQL.
type sqliteDialect struct{}

func (sqliteDialect) rebind(query string) string { return query }

func (sqliteDialect) schema(migration string) string { return migration }

// querier is what version needs: a database, a connection or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// version reads the file's header: PRAGMA application_id marks it as ours, user_version is
// the schema.
func (sqliteDialect) version(ctx context.Context, q querier, path string) (int, error) {
	var app, ver int64
	if err := q.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return 0, fmt.Errorf("store: open %s: %w (%v)", path, ErrNotStore, err)
	}
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&ver); err != nil {
		return 0, fmt.Errorf("store: open %s: %w (%v)", path, ErrNotStore, err)
	}
	switch {
	case app == applicationID && ver > int64(len(migrations)):
		return 0, &newerSchemaError{path: path, have: int(ver), know: len(migrations)}
	case app == applicationID:
		return int(ver), nil
	}
	tables, err := sqliteTables(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("store: open %s: %w (%v)", path, ErrNotStore, err)
	}
	switch {
	case app == 0 && ver == 0 && len(tables) == 0:
		return 0, nil // new and empty
	case app != 0:
		return 0, fmt.Errorf("store: open %s: %w (another program's: application id %#x)", path, ErrNotStore, app)
	case len(tables) > 0:
		return 0, fmt.Errorf("store: open %s: %w (another program's: it has tables %s)", path, ErrNotStore, strings.Join(tables, ", "))
	default:
		return 0, fmt.Errorf("store: open %s: %w (schema version %d but no tables)", path, ErrNotStore, ver)
	}
}

func sqliteTables(ctx context.Context, q querier) ([]string, error) {
	return names(q.QueryContext(ctx, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"))
}

// names reads a column of strings.
func names(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (sqliteDialect) setVersion(ctx context.Context, tx *sql.Tx, ver int) error {
	// PRAGMA takes no parameters; both values are constants of this package.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", ver)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID))
	return err
}

// lockWrites has nothing to do: the DSN's _txlock=immediate begins every transaction with the
// write lock.
func (sqliteDialect) lockWrites(context.Context, *sql.Tx) error { return nil }

// sqliteConstraintUnique is SQLITE_CONSTRAINT_UNIQUE, the extended code of a UNIQUE violation.
const sqliteConstraintUnique = 2067

func (sqliteDialect) uniqueViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqliteConstraintUnique
}
