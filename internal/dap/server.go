package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/google/go-dap"
)

// A Session is one debugging session over one connection (stdio or a TCP client). Requests are
// handled one at a time on the session's goroutine, so the session's state needs no locks; work
// that takes long (building the user's package, checking, re-running a trace) runs on its own
// goroutine and hands its result back as a task on the same goroutine. cancel, terminate and
// disconnect also stop that work at once, from the reading goroutine.
type Session struct {
	id    int64 // numbers sessions in logs
	cfg   Config
	rw    io.ReadWriteCloser
	codec *dap.Codec
	log   *slog.Logger

	wmu  sync.Mutex // guards w, seq and werr: events are sent from background goroutines too
	w    *bufio.Writer
	seq  int
	werr error // the first failed write: logged once, since every later one fails the same way

	reqs   chan dap.Message
	tasks  chan func()
	doneCh chan struct{} // closed when Run returns
	quit   bool

	admitted bool // the client gave Config.Token (token.go)

	opMu sync.Mutex
	op   op // the running background operation, if any

	state // what the session is showing; see state.go
}

// NewSession makes a session that talks DAP over rw. Run serves it.
func NewSession(rw io.ReadWriteCloser, cfg Config) *Session {
	cfg.defaults()
	s := &Session{
		id:     sessionSeq.Add(1),
		cfg:    cfg,
		rw:     rw,
		codec:  newCodec(),
		log:    cfg.Logger.With("layer", "dap"),
		w:      bufio.NewWriter(rw),
		reqs:   make(chan dap.Message),
		tasks:  make(chan func(), 64),
		doneCh: make(chan struct{}),
	}
	s.log = s.log.With("session", s.id)
	s.state.init()
	s.replay.Out = s.modelOutput
	return s
}

// sessionSeq numbers the sessions of this process from 1, so that the lines of several TCP clients
// in one wire log or slog stream can be told apart.
var sessionSeq atomic.Int64

// Serve runs a session on rw until the client disconnects or the connection ends.
func Serve(rw io.ReadWriteCloser, cfg Config) error {
	return NewSession(rw, cfg).Run()
}

// Run serves requests until disconnect or the end of the input; it closes the connection.
func (s *Session) Run() error {
	readErr := make(chan error, 1)
	go func() { readErr <- s.readLoop() }()
	defer s.shutdown()
	for !s.quit {
		select {
		case m, ok := <-s.reqs:
			if !ok {
				return <-readErr
			}
			s.handle(m)
		case f := <-s.tasks:
			f()
		}
	}
	return nil
}

// shutdown stops background work and releases what the session holds.
func (s *Session) shutdown() {
	close(s.doneCh)
	s.interrupt()
	s.closeTrace()
	s.replay.Close()
	s.leaveInside()
	if c, ok := s.views.(io.Closer); ok && s.views != s.cfg.Views {
		c.Close()
	}
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	s.rw.Close()
}

// readLoop decodes requests and queues them for the session goroutine.
func (s *Session) readLoop() error {
	defer close(s.reqs)
	r := bufio.NewReader(s.rw)
	for {
		b, err := dap.ReadBaseMessage(r)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
				return nil
			}
			return fmt.Errorf("read DAP message: %w", err)
		}
		s.cfg.WireLog.log(s.id, "<<", b)
		m, err := s.codec.DecodeMessage(b)
		if err != nil {
			m = undecodable(b, err)
		}
		m = withHoverPlace(m, b)
		// Stop a running build or check now, not after it.
		switch m := m.(type) {
		case *dap.CancelRequest:
			if m.Arguments != nil {
				s.cancelOp(*m.Arguments)
			}
		case *dap.TerminateRequest, *dap.DisconnectRequest:
			s.interrupt()
		}
		select {
		case s.reqs <- m:
		case <-s.done():
			return nil
		}
	}
}

// done is closed when the session has quit. The session goroutine stops reading s.reqs then.
func (s *Session) done() <-chan struct{} { return s.doneCh }

// A badRequest is a message that did not decode: an unknown command or malformed arguments.
type badRequest struct {
	dap.Request
	err error
}

func undecodable(b []byte, err error) dap.Message {
	var r badRequest
	json.Unmarshal(b, &r.Request)
	r.err = err
	var field *dap.DecodeProtocolMessageFieldError
	if errors.As(err, &field) && field.FieldName == "command" {
		r.err = fmt.Errorf("cmcdap does not support the %q request", field.FieldValue)
	}
	return &r
}

func (r *badRequest) GetSeq() int { return r.Seq }

// handle answers one request. A panic while handling it becomes an error response: a bug in one
// request must not end the session (Delve's recoverPanic).
func (s *Session) handle(m dap.Message) {
	defer s.recoverPanic(m)
	if s.cfg.beforeRequest != nil {
		s.cfg.beforeRequest(m)
	}
	if !s.admit(m) {
		return
	}
	s.dispatch(m)
}

func (s *Session) recoverPanic(m dap.Message) {
	r := recover()
	if r == nil {
		return
	}
	req := requestOf(m)
	s.log.Error("panic in request handler", "command", req.Command, "panic", r, "stack", string(debug.Stack()))
	s.sendError(req, errInternal, fmt.Sprintf("internal error in %s: %v (the session goes on; please report this with the wire log)", req.Command, r))
}

// requestOf returns the request part of a request message.
func requestOf(m dap.Message) *dap.Request {
	if rm, ok := m.(dap.RequestMessage); ok {
		return rm.GetRequest()
	}
	if b, ok := m.(*badRequest); ok {
		return &b.Request
	}
	return &dap.Request{ProtocolMessage: dap.ProtocolMessage{Seq: m.GetSeq()}}
}

// post runs f on the session goroutine; background work reports through it. It returns false
// when the session has ended and f will not run.
func (s *Session) post(f func()) bool {
	select {
	case s.tasks <- f:
		return true
	case <-s.done():
		return false
	}
}

// An op is the running background operation: what cancel, terminate and disconnect stop.
type op struct {
	cancel     context.CancelFunc
	progressID string // the progress it reports, if any
	requestSeq int    // the request it answers, if any
}

// startOp registers a background operation, cancelling any older one.
func (s *Session) startOp(parent context.Context, progressID string, requestSeq int) context.Context {
	ctx, cancel := context.WithCancel(parent)
	s.opMu.Lock()
	if s.op.cancel != nil {
		s.op.cancel()
	}
	s.op = op{cancel: cancel, progressID: progressID, requestSeq: requestSeq}
	s.opMu.Unlock()
	return ctx
}

// endOp forgets the finished background operation.
func (s *Session) endOp() {
	s.opMu.Lock()
	s.op = op{}
	s.opMu.Unlock()
}

// interrupt cancels the running background operation, if any.
func (s *Session) interrupt() {
	s.opMu.Lock()
	if s.op.cancel != nil {
		s.op.cancel()
	}
	s.op = op{}
	s.opMu.Unlock()
}

// cancelOp cancels the operation a cancel request names by its progress or request, and reports
// whether it did. Clients cancel other requests too; those finish anyway.
func (s *Session) cancelOp(a dap.CancelArguments) bool {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	o := s.op
	if o.cancel == nil || (a.ProgressId == "" || a.ProgressId != o.progressID) && (a.RequestId == 0 || a.RequestId != o.requestSeq) {
		return false
	}
	o.cancel()
	return true
}

// send writes one message; it is safe from any goroutine.
func (s *Session) send(m dap.Message) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.seq++
	switch m := m.(type) {
	case dap.ResponseMessage:
		m.GetResponse().Seq = s.seq
	case dap.EventMessage:
		m.GetEvent().Seq = s.seq
	}
	b, err := json.Marshal(m)
	if err != nil {
		s.log.Error("marshal DAP message", "err", err)
		return
	}
	s.cfg.WireLog.log(s.id, ">>", b)
	err = dap.WriteBaseMessage(s.w, b)
	if err == nil {
		err = s.w.Flush()
	}
	if err != nil && s.werr == nil {
		// The client is gone or the pipe broke; the read loop ends the session. Say why its
		// answers stopped.
		s.werr = err
		s.log.Warn("write DAP message", "err", err)
	}
}

// response starts a successful response to req.
func response(req *dap.Request) dap.Response {
	return dap.Response{
		ProtocolMessage: dap.ProtocolMessage{Type: "response"},
		Command:         req.Command, RequestSeq: req.Seq, Success: true,
	}
}

// event starts an event.
func event(name string) dap.Event {
	return dap.Event{ProtocolMessage: dap.ProtocolMessage{Type: "event"}, Event: name}
}

// Error ids: clients show the message; the id says which kind of failure it was.
const (
	errInternal = 1000 + iota
	errLaunch
	errNotStopped
	errBadArgs
	errUnsupported
	errStore
	errEvaluate
	errGraph
	errUnauthorized
)

// sendError answers req with an error the user sees.
func (s *Session) sendError(req *dap.Request, id int, msg string) {
	s.errorResponse(req, id, msg, true)
}

// sendQuietError answers req with an error the client need not show (a failed hover).
func (s *Session) sendQuietError(req *dap.Request, id int, msg string) {
	s.errorResponse(req, id, msg, false)
}

func (s *Session) errorResponse(req *dap.Request, id int, msg string, show bool) {
	r := &dap.ErrorResponse{Response: response(req)}
	r.Success = false
	r.Message = msg
	r.Body.Error = &dap.ErrorMessage{Id: id, Format: msg, ShowUser: show}
	s.send(r)
}

// output sends text to the debug console (category console, stdout or stderr).
func (s *Session) output(category, text string) {
	e := &dap.OutputEvent{Event: event("output")}
	e.Body.Category, e.Body.Output = category, text
	s.send(e)
}
