package cluster

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// fileCheckpoints keep a partition's checkpoint (engine/checkpoint.go) in a file of the run's
// directory, replaced whole at each level: written beside it, synced and renamed over it, so a
// kill leaves the old one or the new one.
type fileCheckpoints struct{ path string }

// checkpointFile is where partition k of run keeps its checkpoint under dir.
func checkpointFile(dir, run string, k int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-p%d.checkpoint", run, k))
}

func (c fileCheckpoints) Save(write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(c.path), filepath.Base(c.path)+".*.tmp")
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), c.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func (c fileCheckpoints) Load() (io.ReadCloser, error) {
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f, err
}
