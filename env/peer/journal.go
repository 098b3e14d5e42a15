package peer

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cmc-go/cmc/env"
)

// Journal loads the I/O cache journal at path into p (if the file exists) and appends p's cache
// changes to it from now on (env.Peer.RecordTo): a replay of a stored trace, or the next check,
// then answers from what this one learnt, and needs the peer only beyond it. The file stays open
// for the process's life.
func Journal(p *env.Peer, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("I/O cache journal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("I/O cache journal: %w", err)
	}
	if _, err := p.Load(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	p.RecordTo(f)
	return nil
}
