package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// A dialect is what differs between the databases the store runs on: SQLite (a file, the
// default) and PostgreSQL (a URL, for a cluster whose workers write into one database). The
// store's queries are written once, in the SQL both accept, with ? for parameters; the
// dialect does the rest.
type dialect interface {
	// rebind turns the ? parameters of query into the database's own.
	rebind(query string) string
	// schema turns a migration, written for SQLite, into the database's own DDL.
	schema(migration string) string
	// version returns the schema version of the database (0: new and empty), or an error
	// when it is not ours or newer than this code; path names it in messages.
	version(ctx context.Context, q querier, path string) (int, error)
	// setVersion records that the schema is now at version ver.
	setVersion(ctx context.Context, tx *sql.Tx, ver int) error
	// lockWrites makes a write transaction the only one: SQLite does it for every transaction
	// (_txlock=immediate); PostgreSQL takes an advisory lock. Checks such as "is this trace
	// stored already" then stay true until the transaction commits.
	lockWrites(ctx context.Context, tx *sql.Tx) error
	// uniqueViolation reports whether err is the violation of a UNIQUE constraint.
	uniqueViolation(err error) bool
}

// dollarParams rewrites ? as $1, $2... outside quoted strings and identifiers.
func dollarParams(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 2*strings.Count(query, "?"))
	n := 0
	var quote byte // ' or " while inside one
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// A writeTx is a write transaction whose queries are rebound for the store's dialect.
type writeTx struct {
	tx *sql.Tx
	d  dialect
}

func (t writeTx) Exec(query string, args ...any) (sql.Result, error) {
	return t.tx.Exec(t.d.rebind(query), args...)
}

func (t writeTx) Query(query string, args ...any) (*sql.Rows, error) {
	return t.tx.Query(t.d.rebind(query), args...)
}

func (t writeTx) QueryRow(query string, args ...any) *sql.Row {
	return t.tx.QueryRow(t.d.rebind(query), args...)
}

func (t writeTx) Prepare(query string) (*sql.Stmt, error) {
	return t.tx.Prepare(t.d.rebind(query))
}

// query and queryRow read outside a transaction.
func (s *Store) query(query string, args ...any) (*sql.Rows, error) {
	return s.db.Query(s.d.rebind(query), args...)
}

func (s *Store) queryRow(query string, args ...any) *sql.Row {
	return s.db.QueryRow(s.d.rebind(query), args...)
}

// insertID runs an INSERT ... RETURNING id (both databases have RETURNING; PostgreSQL has no
// last insert id) and returns the id.
func (t writeTx) insertID(query string, args ...any) (int64, error) {
	var id int64
	err := t.QueryRow(query+" RETURNING id", args...).Scan(&id)
	return id, err
}

// flag stores a bool as the schema's INTEGER 0 or 1 (PostgreSQL does not convert a bool).
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}
