package store

import (
	"errors"
	"fmt"
)

// Errors the store returns wrapped, for errors.Is.
var (
	// ErrNotFound: no trace, step, run or bookmark by that id or name.
	ErrNotFound = errors.New("not found")
	// ErrNameTaken: a bookmark of that name exists already.
	ErrNameTaken = errors.New("name already taken")
	// ErrNewerSchema: the database was written by a newer cmcdap.
	ErrNewerSchema = errors.New("database written by a newer cmcdap")
	// ErrNotStore: the file is not a cmcdap trace database (another program's, or damaged).
	ErrNotStore = errors.New("not a cmcdap trace database")
)

// newerSchemaError says which versions clash and how to fix it.
type newerSchemaError struct {
	path       string
	have, know int
}

func (e *newerSchemaError) Error() string {
	return fmt.Sprintf("store: database %s was written by a newer cmcdap (schema %d, this one knows %d): upgrade cmcdap", e.path, e.have, e.know)
}

func (e *newerSchemaError) Is(target error) bool { return target == ErrNewerSchema }
