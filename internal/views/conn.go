package views

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Limits of one websocket connection.
const (
	maxRequest   = 64 << 10 // bytes of one message from the page
	sendQueue    = 64       // messages waiting to be written
	maxInFlight  = 4        // requests of one page served at once
	writeTimeout = 10 * time.Second
)

var upgrader = websocket.Upgrader{
	ReadBufferSize:  4 << 10,
	WriteBufferSize: 32 << 10,
	// serveWS checks the origin before upgrading, to answer 403 rather than gorilla's 403 with
	// no reason.
	CheckOrigin: func(*http.Request) bool { return true },
}

// A conn is one page's websocket. The handler goroutine reads; one goroutine writes everything
// (replies, pushes, pings), so writes never interleave; requests run in their own goroutines,
// at most maxInFlight at once.
type conn struct {
	ws   *websocket.Conn
	send chan []byte
	done chan struct{} // closed when the connection ends
	once sync.Once
	slot chan struct{}
}

func (c *conn) close() { c.once.Do(func() { close(c.done) }) }

// offer queues a message without waiting; false when the queue is full or the page is gone.
func (c *conn) offer(b []byte) bool {
	select {
	case c.send <- b:
		return true
	default:
		return false
	}
}

// queue waits to queue a message, unless the connection ends.
func (c *conn) queue(b []byte) {
	select {
	case c.send <- b:
	case <-c.done:
	}
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if tok, _ := tokenOf(r); !s.validToken(tok) {
		unauthorized(w)
		return
	}
	if !originAllowed(r) {
		http.Error(w, "cmc views: origin "+r.Header.Get("Origin")+" may not connect", http.StatusForbidden)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	c := &conn{ws: ws, send: make(chan []byte, sendQueue), done: make(chan struct{}), slot: make(chan struct{}, maxInFlight)}
	if !s.add(c) {
		ws.Close()
		return
	}
	defer s.remove(c)
	mode := ModeStandalone
	if s.OnGoto != nil {
		mode = ModeDebug
	}
	hello, _ := json.Marshal(Push{Push: PushHello, Mode: mode})
	c.offer(hello)
	s.mu.Lock()
	if s.last != nil {
		c.offer(s.last)
	}
	s.mu.Unlock()

	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		s.write(c)
	}()
	s.read(c)
	c.close()
	<-wrote
	ws.Close()
	// Requests still running see done and drop their replies; wait for them so Close can promise
	// no goroutine outlives the server.
	for range maxInFlight {
		c.slot <- struct{}{}
	}
}

func (s *Server) read(c *conn) {
	c.ws.SetReadLimit(maxRequest)
	c.ws.SetReadDeadline(time.Now().Add(s.pongWait))
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(s.pongWait)) })
	for {
		_, b, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		c.ws.SetReadDeadline(time.Now().Add(s.pongWait))
		select {
		case c.slot <- struct{}{}:
		case <-c.done:
			return
		}
		go func() {
			defer func() { <-c.slot }()
			if reply := s.handle(b); reply != nil {
				c.queue(reply)
			}
		}()
	}
}

func (s *Server) write(c *conn) {
	ping := time.NewTicker(s.pingEvery)
	defer ping.Stop()
	for {
		select {
		case b := <-c.send:
			c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
				c.close()
				c.ws.Close() // unblocks the reader
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout)); err != nil {
				c.close()
				c.ws.Close()
				return
			}
		case <-c.done:
			c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			return
		}
	}
}
