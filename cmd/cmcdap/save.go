package main

import (
	"github.com/cmc-go/cmc/store"
)

// traceDB is the check command's view of the trace store.
type traceDB struct {
	*store.Store
	path string
}

// dbUsage describes every command's -db flag.
const dbUsage = "trace database: a `file` (default .cmc/traces.db) or postgres://USER@HOST:PORT/DATABASE (password from PGPASSWORD or ~/.pgpass)"

// openStore opens the trace database: path (a file or a postgres:// URL), or .cmc/traces.db in
// the current directory.
func openStore(path string) (*traceDB, error) {
	if path == "" {
		path = store.DefaultPath(".")
	}
	s, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	return &traceDB{Store: s, path: path}, nil
}
