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
)

// OpenReadOnly opens an existing trace database for reading only: listing and showing traces
// work on a file the user may not write (chmod 0444, a read-only directory or mount). It never
// creates, migrates or otherwise writes the file. A database in WAL mode needs a shared-memory
// file beside it; where none exists and none can be made (a read-only directory), it is opened
// as immutable, which is safe only because then no other process can be writing it either; so
// is a file or directory whose mode lets no one write, even when the user is root.
//
// A postgres:// URL opens that database in read-only transactions.
func OpenReadOnly(path string) (*Store, error) {
	if IsURL(path) {
		return openPostgres(path, true)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := checkMagic(path, abs); err != nil {
		return nil, err
	}
	ctx := context.Background()
	var firstErr error
	dsns := []string{"?mode=ro&_pragma=busy_timeout(5000)", "?mode=ro&immutable=1"}
	if readOnlyByMode(abs) || readOnlyByMode(filepath.Dir(abs)) {
		dsns = dsns[1:] // not even root should leave -wal and -shm files where the user wants none
	}
	for _, params := range dsns {
		db, err := sql.Open("sqlite", "file:"+escapePath(abs)+params)
		if err == nil {
			err = db.PingContext(ctx)
		}
		if err == nil {
			var ver int
			err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&ver)
		}
		if err != nil {
			if db != nil {
				db.Close()
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		s := &Store{db: db, path: path, d: sqliteDialect{}, heads: map[int64]*traceHead{}}
		if err := s.checkVersion(ctx); err != nil {
			db.Close()
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("store: open %s read-only: %w (%v)", path, ErrNotStore, firstErr)
}

// readOnlyByMode reports whether path's mode lets no one write it.
func readOnlyByMode(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Perm()&0o222 == 0
}

// checkMagic refuses a path that is missing, a directory, or not an SQLite file, without opening
// it as a database.
func checkMagic(path, abs string) error {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("store: open %s: %w", path, err)
	case err != nil:
		return fmt.Errorf("store: open %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("store: open %s: %w (it is a directory)", path, ErrNotStore)
	}
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sqliteMagic {
		return fmt.Errorf("store: open %s: %w (it is not an SQLite database)", path, ErrNotStore)
	}
	return nil
}
