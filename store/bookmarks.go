package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A Bookmark names a state of a trace: the state after step Step (0: the initial state).
type Bookmark struct {
	ID      int64     `json:"id"`
	Trace   int64     `json:"trace"`
	Step    int       `json:"step"`
	Name    string    `json:"name"` // unique in the database
	Note    string    `json:"note,omitempty"`
	Created time.Time `json:"created"`
}

// AddBookmark stores b (its Created zero: now) and returns its id. The name must be new
// (ErrNameTaken otherwise), the trace must exist and the step be one of its states.
func (s *Store) AddBookmark(b Bookmark) (int64, error) {
	if strings.TrimSpace(b.Name) == "" {
		return 0, errors.New("store: add bookmark: give it a name")
	}
	if b.Created.IsZero() {
		b.Created = time.Now()
	}
	var id int64
	err := s.inTx(context.Background(), "add bookmark "+b.Name, func(tx writeTx) error {
		var length int
		err := tx.QueryRow(`SELECT length FROM traces WHERE id = ?`, b.Trace).Scan(&length)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: add bookmark %q: trace %d: %w", b.Name, b.Trace, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: add bookmark %q: %w", b.Name, err)
		}
		if b.Step < 0 || b.Step > length {
			return fmt.Errorf("store: add bookmark %q: trace %d has states 0 to %d, not %d", b.Name, b.Trace, length, b.Step)
		}
		id, err = tx.insertID(`INSERT INTO bookmarks (trace_id, step, name, note, created_at) VALUES (?, ?, ?, ?, ?)`,
			b.Trace, b.Step, b.Name, b.Note, formatTime(b.Created))
		if err != nil {
			return fmt.Errorf("store: add bookmark %q: %w", b.Name, s.nameTaken(err))
		}
		return nil
	})
	return id, err
}

// nameTaken turns a UNIQUE violation into ErrNameTaken.
func (s *Store) nameTaken(err error) error {
	if s.d.uniqueViolation(err) {
		return ErrNameTaken
	}
	return err
}

const bookmarkColumns = `id, trace_id, step, name, note, created_at`

func scanBookmark(sc scanner) (Bookmark, error) {
	var b Bookmark
	var created sql.NullString
	if err := sc.Scan(&b.ID, &b.Trace, &b.Step, &b.Name, &b.Note, &created); err != nil {
		return b, err
	}
	var err error
	b.Created, err = parseTime(created)
	return b, err
}

// Bookmarks lists all bookmarks, oldest first.
func (s *Store) Bookmarks() ([]Bookmark, error) {
	rows, err := s.query(`SELECT ` + bookmarkColumns + ` FROM bookmarks ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: list bookmarks: %w", err)
	}
	defer rows.Close()
	var out []Bookmark
	for rows.Next() {
		b, err := scanBookmark(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list bookmarks: %w", err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list bookmarks: %w", err)
	}
	return out, nil
}

// BookmarkByName returns the bookmark called name.
func (s *Store) BookmarkByName(name string) (Bookmark, error) {
	b, err := scanBookmark(s.queryRow(`SELECT `+bookmarkColumns+` FROM bookmarks WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return b, fmt.Errorf("store: bookmark %q: %w", name, err)
	}
	return b, nil
}

// RenameBookmark renames a bookmark; the new name must be free.
func (s *Store) RenameBookmark(old, name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("store: rename bookmark %q: give a new name", old)
	}
	return s.inTx(context.Background(), "rename bookmark "+old, func(tx writeTx) error {
		res, err := tx.Exec(`UPDATE bookmarks SET name = ? WHERE name = ?`, name, old)
		if err != nil {
			return fmt.Errorf("store: rename bookmark %q to %q: %w", old, name, s.nameTaken(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: rename bookmark %q: %w", old, ErrNotFound)
		}
		return nil
	})
}

// DeleteBookmark deletes the bookmark called name.
func (s *Store) DeleteBookmark(name string) error {
	return s.inTx(context.Background(), "delete bookmark "+name, func(tx writeTx) error {
		res, err := tx.Exec(`DELETE FROM bookmarks WHERE name = ?`, name)
		if err != nil {
			return fmt.Errorf("store: delete bookmark %q: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: delete bookmark %q: %w", name, ErrNotFound)
		}
		return nil
	})
}
