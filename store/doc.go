// Package store keeps what the checker found in a SQLite database (modernc.org/sqlite, pure Go):
// runs, the traces of their violations with every step, and the user's bookmarks. It exists so a
// trace outlives the check that found it: the debugger opens it later, fetches any step or the
// full state at any step in milliseconds, and the same bug found again is recognised by its
// signature.
//
// A trace is written in one transaction with all its steps, so a reader never sees half of one.
// Steps are stored as diffs in a compact encoding (strings interned per trace, see codec.go), with
// a full checkpoint of the state every CheckpointEvery steps: State(n) reads the nearest
// checkpoint at or before n and applies at most CheckpointEvery-1 diffs, whatever n is.
//
// The same Store runs on a PostgreSQL database named by a postgres:// URL (pgx), so the
// processes of a cluster write into one database: the queries are written once, and a dialect
// (dialect.go) rebinds their parameters, translates the schema's types, keeps the version and
// serialises writers. docs/cluster.md says how to use it.
//
// The schema is versioned with PRAGMA user_version (in PostgreSQL, a cmc_schema table) and
// upgraded by an ordered list of migrations; a database from a newer cmcdap, or one that is not
// ours, is refused with a clear error and left untouched. docs/store.md describes the schema and durability choices.
package store
