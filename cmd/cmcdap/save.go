package main

import (
	"github.com/cmc-go/cmc/store"
)

// traceDB is the check command's view of the trace store.
type traceDB struct {
	*store.Store
	path string
}

// openStore opens the trace database: path, or .cmc/traces.db in the current directory.
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
