package dap

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cmc-go/cmc/store"
)

// Bookmarks name states (a step of a stored trace) so a later session can go back to them or
// check from them: launch with "bookmark" starts the search in the bookmarked state, which is
// how a fix is shown to remove a violation found deep in a trace.

// addBookmark bookmarks the state the session shows.
func (s *Session) addBookmark(name, note string) (store.Bookmark, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return store.Bookmark{}, errors.New(`give "name"`)
	}
	if err := s.needStop(); err != nil {
		return store.Bookmark{}, err
	}
	b := store.Bookmark{Name: name, Note: note, Trace: s.tr.id, Step: s.pos.Shown(), Created: s.cfg.now()}
	id, err := s.db.AddBookmark(b)
	b.ID = id
	return b, err
}

func (s *Session) cmcAddBookmark(req *customRequest) (any, error) {
	var a struct {
		Name string `json:"name"`
		Note string `json:"note"`
	}
	if err := args(req, &a); err != nil {
		return nil, err
	}
	b, err := s.addBookmark(a.Name, a.Note)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bookmark": b}, nil
}

func (s *Session) cmcBookmarks(req *customRequest) (any, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	bs, err := s.db.Bookmarks()
	if err != nil {
		return nil, err
	}
	if bs == nil {
		bs = []store.Bookmark{}
	}
	return map[string]any{"bookmarks": bs}, nil
}

func (s *Session) cmcRemoveBookmark(req *customRequest) (any, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := args(req, &a); err != nil {
		return nil, err
	}
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if a.Name == "" {
		return nil, errors.New(`give "name"`)
	}
	return map[string]any{}, s.db.DeleteBookmark(a.Name)
}

func (s *Session) cmcRenameBookmark(req *customRequest) (any, error) {
	var a struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
	}
	if err := args(req, &a); err != nil {
		return nil, err
	}
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if a.Name == "" || strings.TrimSpace(a.NewName) == "" {
		return nil, fmt.Errorf(`give "name" and "newName"`)
	}
	if err := s.db.RenameBookmark(a.Name, strings.TrimSpace(a.NewName)); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}
