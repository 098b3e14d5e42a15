package views

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// A Server serves the views of one Source: the page and its bundle over HTTP, and data over a
// websocket. Everything needs the session's token.
type Server struct {
	src   Source
	token string
	log   *slog.Logger

	// OnGoto is called when the user clicks a step in the chart; set it before Start. Without it
	// the page navigates by itself (standalone).
	OnGoto func(traceID int64, step int)

	mu    sync.Mutex
	conns map[*conn]struct{}
	last  []byte // the latest Show push, for clients that connect later
	ln    net.Listener
	http  *http.Server
	url   string

	wg     sync.WaitGroup // connections and their requests
	closed atomic.Bool

	traces *cache[int64, *traceEntry]
	graphs *cache[stepKey, *graphEntry]
	diffs  *cache[stepKey, []DiffRow]

	// Keepalive: a ping every pingEvery; a connection silent for pongWait is closed.
	pingEvery, pongWait time.Duration
}

type stepKey struct {
	trace int64
	step  int
}

type traceEntry struct {
	t     *engine.Trace
	chart *SeqChart
}

type graphEntry struct {
	g    *canon.Graph
	note string
}

// Options configure a Server.
type Options struct {
	Token string // the session token; "": a fresh random one
	Log   *slog.Logger
}

// New makes a server for src.
func New(src Source, o Options) (*Server, error) {
	tok := o.Token
	if tok == "" {
		var err error
		if tok, err = NewToken(); err != nil {
			return nil, err
		}
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{src: src, token: tok, log: log, conns: map[*conn]struct{}{},
		traces: newCache[int64, *traceEntry](8), graphs: newCache[stepKey, *graphEntry](8),
		diffs: newCache[stepKey, []DiffRow](8), pingEvery: 20 * time.Second, pongWait: 60 * time.Second}, nil
}

// Token returns the session token.
func (s *Server) Token() string { return s.token }

// Start listens on addr and serves in the background. The address must be a loopback one unless
// allowRemote: the views show the user's program state.
func (s *Server) Start(addr string, allowRemote bool) error {
	if err := CheckLoopback(addr, allowRemote); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("views: listen on %s: %w", addr, err)
	}
	s.mu.Lock()
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	s.mu.Unlock()
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("views server stopped", "layer", "views", "err", err)
		}
	}()
	return nil
}

// URL returns the address of the started server's page, with the token: opening it lets a
// browser in.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.url == "" {
		return ""
	}
	return s.url + "/?token=" + s.token
}

// TraceURL returns a link to a trace at a step, with the token.
func (s *Server) TraceURL(traceID int64, step int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url + "/trace/" + strconv.FormatInt(traceID, 10) + "?step=" + strconv.Itoa(step) + "&token=" + s.token
}

// WebsocketURL returns the websocket's address, without the token (send it as ?token=).
func (s *Server) WebsocketURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.url == "" {
		return ""
	}
	return "ws" + s.url[len("http"):] + "/ws"
}

// A Push is a message the server sends unasked: a hello on connecting, then the steps to show.
type Push struct {
	Push  PushKind `json:"push"`
	Trace int64    `json:"trace,omitempty"` // show
	Step  int      `json:"step"`            // show
	Mode  Mode     `json:"mode,omitempty"`  // hello
	Sent  float64  `json:"sent,omitempty"`  // show: when Show was called, in Unix milliseconds
}

// A PushKind says which push a Push is.
type PushKind string

const (
	PushHello PushKind = "hello"
	PushShow  PushKind = "show"
)

// A Mode says where the page's goto goes: to the debugger, or to the page itself.
type Mode string

const (
	ModeDebug      Mode = "debug"
	ModeStandalone Mode = "standalone"
)

// PushKinds and Modes are all the values of their types: the page's TypeScript types are their
// unions (internal/gen).
var (
	PushKinds = []PushKind{PushHello, PushShow}
	Modes     = []Mode{ModeDebug, ModeStandalone}
)

// Show tells every connected page to show a trace at a step; pages that connect later are told
// on connecting. It never blocks: a page too slow to take it misses it.
func (s *Server) Show(traceID int64, step int) {
	b, _ := json.Marshal(Push{Push: PushShow, Trace: traceID, Step: step, Sent: float64(time.Now().UnixMicro()) / 1000})
	s.mu.Lock()
	s.last = b
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		if !c.offer(b) {
			s.log.Warn("page too slow: show dropped", "layer", "views", "trace", traceID, "step", step)
		}
	}
}

// Close stops the server, closes every connection and waits for their goroutines.
func (s *Server) Close() error {
	s.closed.Store(true)
	s.mu.Lock()
	hs := s.http
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	var err error
	if hs != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = hs.Shutdown(ctx) // hijacked websockets are not waited for: closed below
		cancel()
	}
	for _, c := range conns {
		c.ws.Close()
	}
	s.wg.Wait()
	return err
}

func (s *Server) add(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) remove(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.wg.Done()
}
