package store

import (
	"strconv"
	"testing"

	"github.com/cmc-go/cmc/store/pgtest"
)

// An opener opens a new, empty store for a test and returns it with what Open takes to open it
// again (a file path, or a URL with its password).
type opener func(t testing.TB) (*Store, string)

// eachBackend runs a behavioural test on every database the store runs on: an SQLite file and
// a PostgreSQL database (skipped where PostgreSQL is not installed, unless it is required).
func eachBackend(t *testing.T, test func(t *testing.T, open opener)) {
	t.Run("sqlite", func(t *testing.T) { test(t, openTemp) })
	t.Run("postgres", func(t *testing.T) { test(t, openPostgresTemp) })
}

// openPostgresTemp opens a store in a new database of the test binary's PostgreSQL server.
func openPostgresTemp(t testing.TB) (*Store, string) {
	t.Helper()
	url := pgtest.DB(t)
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, url
}

// setVersion writes schema version ver where the database keeps it, as an older or a newer
// cmcdap would have left it.
func setVersion(t testing.TB, s *Store, ver int) {
	t.Helper()
	var err error
	switch s.d.(type) {
	case postgresDialect:
		_, err = s.db.Exec("UPDATE "+pgSchemaTable+" SET version = $1", ver)
	default:
		_, err = s.db.Exec("PRAGMA user_version = " + strconv.Itoa(ver))
	}
	if err != nil {
		t.Fatal(err)
	}
}
