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

type bookmarkBody struct {
	Bookmark store.Bookmark `json:"bookmark"`
}

func (s *Session) cmcAddBookmark(a bookmarkArgs) (bookmarkBody, error) {
	b, err := s.addBookmark(a.Name, a.Note)
	return bookmarkBody{b}, err
}

type bookmarksBody struct {
	Bookmarks []store.Bookmark `json:"bookmarks"`
}

func (s *Session) cmcBookmarks(struct{}) (bookmarksBody, error) {
	if err := s.needStore(); err != nil {
		return bookmarksBody{}, err
	}
	bs, err := s.db.Bookmarks()
	if bs == nil {
		bs = []store.Bookmark{}
	}
	return bookmarksBody{bs}, err
}

func (s *Session) cmcRemoveBookmark(a nameArgs) (struct{}, error) {
	if err := s.needStore(); err != nil {
		return struct{}{}, err
	}
	if a.Name == "" {
		return struct{}{}, errors.New(`give "name"`)
	}
	return struct{}{}, s.db.DeleteBookmark(a.Name)
}

func (s *Session) cmcRenameBookmark(a renameArgs) (struct{}, error) {
	if err := s.needStore(); err != nil {
		return struct{}{}, err
	}
	if a.Name == "" || strings.TrimSpace(a.NewName) == "" {
		return struct{}{}, fmt.Errorf(`give "name" and "newName"`)
	}
	return struct{}{}, s.db.RenameBookmark(a.Name, strings.TrimSpace(a.NewName))
}
