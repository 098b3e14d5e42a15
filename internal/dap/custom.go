package dap

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/internal/transition"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

// Custom requests, for what DAP has no words for: the trace list, bookmarks, a step's diff, the
// Choose values for the editor's inline hints, the heap graph (small ones), and going to a step
// by number. Their arguments and bodies are JSON objects (docs/launch.md lists them). Large
// payloads go to the views server instead: go-dap refuses messages over 4 MiB.

// A customRequest is any cmc/... request; its arguments are decoded by its handler.
type customRequest struct {
	dap.Request
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type customResponse struct {
	dap.Response
	Body any `json:"body,omitempty"`
}

// viewsEvent tells the client where the views server is (cmc/views).
type viewsEvent struct {
	dap.Event
	Body viewsBody `json:"body"`
}

type viewsBody struct {
	URL string `json:"url"`
}

// resultEvent says what a finished check found (cmc/result), before the session stops on its
// trace or ends.
type resultEvent struct {
	dap.Event
	Body service.Report `json:"body"`
}

var customCommands = map[string]customCommand{
	"cmc/traces": custom((*Session).cmcTraces,
		"The traces in the database (`db` is its path), and the session's (`current`; 0: none yet)."),
	"cmc/openTrace": custom((*Session).cmcOpenTrace,
		"Switches the session to the stored trace `trace`; `step` is its last step. A stopped event follows: on the violation, or on the initial state of a trace without one."),
	"cmc/gotoStep": custom((*Session).cmcGotoStep,
		"Moves to step `step` (0: the initial state); a stopped event, reason `goto`, follows."),
	"cmc/addBookmark": custom((*Session).cmcAddBookmark,
		"Bookmarks the state shown now as `name`, with an optional `note`."),
	"cmc/bookmarks": custom((*Session).cmcBookmarks,
		"The bookmarks in the database."),
	"cmc/removeBookmark": custom((*Session).cmcRemoveBookmark,
		"Removes the bookmark `name`."),
	"cmc/renameBookmark": custom((*Session).cmcRenameBookmark,
		"Renames the bookmark `name` to `newName`."),
	"cmc/diff": custom((*Session).cmcDiff,
		"Step `step` (default: the one shown): who took it, what it changed, and its notes."),
	"cmc/choices": custom((*Session).cmcChoices,
		fmt.Sprintf("Every Choose call up to the current position, oldest first, for the editor's inline values; at most the latest %d (`truncated`), of `total`.", maxChoiceHints)),
	"cmc/alternatives": customLater((*Session).cmcAlternatives,
		"The other ways step `step` could have gone from the same state: another value of one of its Choose calls (labelled as the model labels it), or another enabled event."),
	"cmc/branch": customLater((*Session).cmcBranch,
		"Stores the trace that takes the session's first `step`-1 steps and then `alternative` (one of cmc/alternatives), derived from the session's trace, and returns its id and the violation that step causes at once, if any."),
	"cmc/graph": customLater((*Session).cmcGraph,
		fmt.Sprintf("The heap graph of step `step` (default: the one shown), a `canon.Graph`, when its JSON is under %d MiB; a larger graph is an error that points to the views.", maxGraphBytes>>20)),
}

// customEvents are the custom events, with what they carry.
var customEvents = []CustomMessage{
	{Name: "cmc/views", Body: reflect.TypeFor[viewsBody](),
		Doc: "Where the views server (heap graph, sequence chart, diff) is: `url`, with its token."},
	{Name: "cmc/result", Body: reflect.TypeFor[service.Report](),
		Doc: "What a finished check found, violation or not: states, time, complete or not, the stored `trace` (`known`: found before), and for a check from a bookmark how it compares with the bookmarked trace (`comparison`)."},
}

// A customCommand answers one custom request. Its handler takes the arguments as a Go type and
// answers with one: `go generate` (internal/gen) writes the extension's TypeScript types and
// docs/launch.md's table of custom requests from the same two types and the doc (CustomMessages),
// so the three cannot drift apart.
type customCommand struct {
	args, body reflect.Type
	doc        string // one line for docs/launch.md
	serve      func(s *Session, req *customRequest) (any, error)
}

func custom[A, B any](f func(s *Session, a A) (B, error), doc string) customCommand {
	return customWithRequest(func(s *Session, _ *customRequest, a A) (B, error) { return f(s, a) }, doc)
}

// customLater is custom for a request that another goroutine answers, with later[B].send.
func customLater[A, B any](f func(s *Session, req *customRequest, a A) (later[B], error), doc string) customCommand {
	c := customWithRequest(f, doc)
	c.body = reflect.TypeFor[B]()
	return c
}

func customWithRequest[A, B any](f func(s *Session, req *customRequest, a A) (B, error), doc string) customCommand {
	return customCommand{reflect.TypeFor[A](), reflect.TypeFor[B](), doc, func(s *Session, req *customRequest) (any, error) {
		var a A
		if len(req.Arguments) > 0 {
			if err := json.Unmarshal(req.Arguments, &a); err != nil {
				return nil, fmt.Errorf("bad arguments: %v", err)
			}
		}
		return f(s, req, a)
	}}
}

// A CustomMessage is a custom request or event with the Go types of what it carries.
type CustomMessage struct {
	Name       string
	Args, Body reflect.Type // Args: nil for an event
	Doc        string       // what it does, in a line
}

// CustomMessages lists the custom requests, by name, and the custom events, for `go generate`.
func CustomMessages() (requests, events []CustomMessage) {
	for name, c := range customCommands {
		requests = append(requests, CustomMessage{name, c.args, c.body, c.doc})
	}
	slices.SortFunc(requests, func(a, b CustomMessage) int { return strings.Compare(a.Name, b.Name) })
	return requests, customEvents
}

// newCodec is go-dap's codec with the custom requests and event registered.
func newCodec() *dap.Codec {
	c := dap.NewCodec()
	for name := range customCommands {
		c.RegisterRequest(name, func() dap.Message { return &customRequest{} }, func() dap.Message { return &customResponse{} })
	}
	c.RegisterEvent("cmc/views", func() dap.Message { return &viewsEvent{} })
	c.RegisterEvent("cmc/result", func() dap.Message { return &resultEvent{} })
	return c
}

func (s *Session) onCustom(req *customRequest) {
	body, err := customCommands[req.Command].serve(s, req)
	if err != nil {
		s.sendError(&req.Request, errBadArgs, req.Command+": "+err.Error())
		return
	}
	if _, later := body.(answeredLater); later {
		return
	}
	s.send(&customResponse{Response: response(&req.Request), Body: body})
	if after, ok := body.(afterReply); ok {
		after.then()
	}
}

// afterReply is a body with something to do once the response is sent (a stop).
type afterReply interface{ then() }

type stepReply struct {
	Step int `json:"step"`
	f    func()
}

func (r stepReply) then() { r.f() }

// later[B] is the body of a request that another goroutine answers with a B.
type later[B any] struct{}

type answeredLater interface{ answeredLater() }

func (later[B]) answeredLater() {}

func (later[B]) send(s *Session, req *customRequest, b B) {
	s.send(&customResponse{Response: response(&req.Request), Body: b})
}

// The arguments of the custom requests; those without any take struct{}.
type (
	traceArgs struct {
		Trace int64 `json:"trace"`
	}
	gotoArgs struct {
		Step *int `json:"step"`
	}
	stepArgs struct {
		Step *int `json:"step,omitempty"` // default: the step shown
	}
	bookmarkArgs struct {
		Name string `json:"name"`
		Note string `json:"note,omitempty"`
	}
	nameArgs struct {
		Name string `json:"name"`
	}
	renameArgs struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
	}
)

func (s *Session) needStore() error {
	if s.db == nil {
		return fmt.Errorf("no trace database is open yet: launch first")
	}
	return nil
}

func (s *Session) needStop() error {
	if s.tr == nil || !s.stopped {
		return fmt.Errorf("not stopped on a trace")
	}
	return nil
}

type tracesBody struct {
	Traces  []store.TraceInfo `json:"traces"`
	Current int64             `json:"current"` // the session's trace; 0: none yet
	DB      string            `json:"db"`
}

func (s *Session) cmcTraces(struct{}) (tracesBody, error) {
	if err := s.needStore(); err != nil {
		return tracesBody{}, err
	}
	ts, err := s.db.Traces(store.TraceQuery{})
	if err != nil {
		return tracesBody{}, err
	}
	if ts == nil {
		ts = []store.TraceInfo{}
	}
	cur := int64(0)
	if s.tr != nil {
		cur = s.tr.id
	}
	return tracesBody{ts, cur, s.db.Path()}, nil
}

// openTrace switches the session to another stored trace and stops on it.
func (s *Session) cmcOpenTrace(a traceArgs) (stepReply, error) {
	if err := s.needStore(); err != nil {
		return stepReply{}, err
	}
	t, _, err := s.db.Trace(a.Trace)
	if err != nil {
		return stepReply{}, err
	}
	s.show(newTrace(a.Trace, t))
	return stepReply{Step: s.tr.len(), f: func() { s.firstStop(false) }}, nil
}

func (s *Session) cmcGotoStep(a gotoArgs) (stepReply, error) {
	if err := s.needStop(); err != nil {
		return stepReply{}, err
	}
	if a.Step == nil {
		return stepReply{}, fmt.Errorf(`give "step", a step number from 0 to %d`, s.tr.len())
	}
	n := *a.Step
	if n < 0 || n > s.tr.len() {
		return stepReply{}, fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", n, s.tr.len())
	}
	return stepReply{Step: n, f: func() { s.gotoStep(n) }}, nil
}

// A diffBody is a step: who took it, and what it changed.
type diffBody struct {
	Step    int               `json:"step"`
	Proc    string            `json:"proc,omitempty"`
	Event   string            `json:"event,omitempty"`
	Changes []canon.Change    `json:"changes"`
	Notes   []transition.Note `json:"notes,omitempty"`
}

func (s *Session) cmcDiff(a stepArgs) (diffBody, error) {
	if err := s.needStop(); err != nil {
		return diffBody{}, err
	}
	n := s.pos.Shown()
	if a.Step != nil {
		n = *a.Step
	}
	if n < 0 || n > s.tr.len() {
		return diffBody{}, fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", n, s.tr.len())
	}
	body := diffBody{Step: n, Changes: []canon.Change{}}
	if n > 0 {
		st := s.tr.step(n)
		body.Proc, body.Event, body.Notes = st.Proc, st.Event, st.Notes
		if st.Changes != nil {
			body.Changes = st.Changes
		}
	}
	return body, nil
}

// A choiceHint is one Choose call of the trace, for inline values at its site.
type choiceHint struct {
	Step   int    `json:"step"`
	Choice int    `json:"choice"` // 1-based, as engine.Cursor numbers Choose calls
	Site   string `json:"site"`   // for people: relative to the workspace, never absolute
	File   string `json:"file"`   // the editor's path, to match documents by
	Line   int    `json:"line"`
	Value  int    `json:"value"`
	N      int    `json:"n"`
	Label  string `json:"label,omitempty"` // what the value means (cmc.ChooseOf)
}

type choicesBody struct {
	Choices   []choiceHint `json:"choices"`
	Total     int          `json:"total"`     // Choose calls up to the current position
	Truncated bool         `json:"truncated"` // Choices has only the latest maxChoiceHints
}

// maxChoiceHints bounds a cmc/choices reply; the latest are kept.
const maxChoiceHints = 5000

// choices lists every Choose call up to the current engine.Cursor, latest last.
func (s *Session) cmcChoices(struct{}) (choicesBody, error) {
	if err := s.needStop(); err != nil {
		return choicesBody{}, err
	}
	var out []choiceHint
	total := len(s.tr.t.Made(s.pos))
	for n := s.pos.Step; n >= 1 && len(out) < maxChoiceHints; n-- {
		cs := s.tr.t.Made(engine.After(n))
		if n == s.pos.Step {
			cs = s.tr.t.Made(s.pos)
		}
		for i := len(cs) - 1; i >= 0 && len(out) < maxChoiceHints; i-- {
			at, _ := s.sourceLine(cs[i].Site) // split and resolved to the editor's path: the extension compares strings
			out = append(out, choiceHint{Step: n, Choice: i + 1, Site: s.siteText(cs[i].Site), File: at.File, Line: at.Line,
				Value: cs[i].Value, N: cs[i].N, Label: cs[i].Label})
		}
	}
	for n := 1; n < s.pos.Step; n++ {
		total += len(s.tr.step(n).Choices)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if out == nil {
		out = []choiceHint{}
	}
	return choicesBody{out, total, len(out) < total}, nil
}
