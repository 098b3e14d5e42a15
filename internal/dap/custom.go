package dap

import (
	"encoding/json"
	"fmt"

	"github.com/cmc-go/cmc/engine"
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

var customCommands = map[string]func(s *Session, req *customRequest) (any, error){
	"cmc/traces":         (*Session).cmcTraces,
	"cmc/openTrace":      (*Session).cmcOpenTrace,
	"cmc/gotoStep":       (*Session).cmcGotoStep,
	"cmc/addBookmark":    (*Session).cmcAddBookmark,
	"cmc/bookmarks":      (*Session).cmcBookmarks,
	"cmc/removeBookmark": (*Session).cmcRemoveBookmark,
	"cmc/renameBookmark": (*Session).cmcRenameBookmark,
	"cmc/diff":           (*Session).cmcDiff,
	"cmc/choices":        (*Session).cmcChoices,
	"cmc/graph":          (*Session).cmcGraph,
}

// newCodec is go-dap's codec with the custom requests and event registered.
func newCodec() *dap.Codec {
	c := dap.NewCodec()
	for name := range customCommands {
		c.RegisterRequest(name, func() dap.Message { return &customRequest{} }, func() dap.Message { return &customResponse{} })
	}
	c.RegisterEvent("cmc/views", func() dap.Message { return &viewsEvent{} })
	return c
}

func (s *Session) onCustom(req *customRequest) {
	h := customCommands[req.Command]
	body, err := h(s, req)
	if err != nil {
		s.sendError(&req.Request, errBadArgs, req.Command+": "+err.Error())
		return
	}
	if _, later := body.(deferred); later {
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

// args decodes a custom request's arguments into v, naming the request in errors.
func args(req *customRequest, v any) error {
	if len(req.Arguments) == 0 {
		return nil
	}
	if err := json.Unmarshal(req.Arguments, v); err != nil {
		return fmt.Errorf("bad arguments: %v", err)
	}
	return nil
}

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

func (s *Session) cmcTraces(req *customRequest) (any, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	ts, err := s.db.Traces(store.TraceQuery{})
	if err != nil {
		return nil, err
	}
	if ts == nil {
		ts = []store.TraceInfo{}
	}
	cur := int64(0)
	if s.tr != nil {
		cur = s.tr.id
	}
	return map[string]any{"traces": ts, "current": cur, "db": s.db.Path()}, nil
}

// openTrace switches the session to another stored trace and stops on it.
func (s *Session) cmcOpenTrace(req *customRequest) (any, error) {
	var a struct {
		Trace int64 `json:"trace"`
	}
	if err := args(req, &a); err != nil {
		return nil, err
	}
	if err := s.needStore(); err != nil {
		return nil, err
	}
	t, _, err := s.db.Trace(a.Trace)
	if err != nil {
		return nil, err
	}
	s.show(newTrace(a.Trace, t))
	return stepReply{Step: s.tr.len(), f: func() { s.firstStop(false) }}, nil
}

func (s *Session) cmcGotoStep(req *customRequest) (any, error) {
	var a struct {
		Step *int `json:"step"`
	}
	if err := args(req, &a); err != nil {
		return nil, err
	}
	if err := s.needStop(); err != nil {
		return nil, err
	}
	if a.Step == nil {
		return nil, fmt.Errorf(`give "step", a step number from 0 to %d`, s.tr.len())
	}
	n := *a.Step
	if n < 0 || n > s.tr.len() {
		return nil, fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", n, s.tr.len())
	}
	return stepReply{Step: n, f: func() { s.gotoStep(n) }}, nil
}

func (s *Session) cmcDiff(req *customRequest) (any, error) {
	var a struct {
		Step *int `json:"step"`
	}
	if err := args(req, &a); err != nil {
		return nil, err
	}
	if err := s.needStop(); err != nil {
		return nil, err
	}
	n := s.pos.Shown()
	if a.Step != nil {
		n = *a.Step
	}
	if n < 0 || n > s.tr.len() {
		return nil, fmt.Errorf("step %d is not in the trace: it has steps 0 to %d", n, s.tr.len())
	}
	body := map[string]any{"step": n, "changes": []any{}}
	if n > 0 {
		st := s.tr.step(n)
		body["proc"], body["event"], body["notes"] = st.Proc, st.Event, st.Notes
		if st.Changes != nil {
			body["changes"] = st.Changes
		}
	}
	return body, nil
}

// A choiceHint is one Choose call of the trace, for inline values at its site.
type choiceHint struct {
	Step   int    `json:"step"`
	Choice int    `json:"choice"` // 1-based, as engine.Cursor numbers Choose calls
	Site   string `json:"site"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Value  int    `json:"value"`
	N      int    `json:"n"`
}

// maxChoiceHints bounds a cmc/choices reply; the latest are kept.
const maxChoiceHints = 5000

// choices lists every Choose call up to the current engine.Cursor, latest last.
func (s *Session) cmcChoices(req *customRequest) (any, error) {
	if err := s.needStop(); err != nil {
		return nil, err
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
			out = append(out, choiceHint{Step: n, Choice: i + 1, Site: cs[i].Site, File: at.File, Line: at.Line, Value: cs[i].Value, N: cs[i].N})
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
	return map[string]any{"choices": out, "total": total, "truncated": len(out) < total}, nil
}
