package coord

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/google/go-dap"
)

// A dapClient is the client end of a DAP connection to a debug adapter (Delve's `dlv dap`):
// requests get their sequence numbers here and wait for their responses; events queue in order
// until Event takes them. go-dap encodes and decodes the messages.
type dapClient struct {
	conn net.Conn
	wmu  sync.Mutex
	seq  int

	mu      sync.Mutex
	pending map[int]chan dap.ResponseMessage
	err     error // why the connection ended, once it has

	events chan dap.EventMessage
	done   chan struct{} // closed when the connection ends
}

func newDAPClient(conn net.Conn) *dapClient {
	c := &dapClient{conn: conn, pending: map[int]chan dap.ResponseMessage{},
		events: make(chan dap.EventMessage, 1024), done: make(chan struct{})}
	go c.read()
	return c
}

func (c *dapClient) read() {
	r := bufio.NewReader(c.conn)
	var err error
	for {
		var m dap.Message
		if m, err = dap.ReadProtocolMessage(r); err != nil {
			break
		}
		switch m := m.(type) {
		case dap.ResponseMessage:
			c.mu.Lock()
			ch := c.pending[m.GetResponse().RequestSeq]
			delete(c.pending, m.GetResponse().RequestSeq)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case dap.EventMessage:
			if _, output := m.(*dap.OutputEvent); output {
				select {
				case c.events <- m:
				default: // nobody reads events this fast: drop output rather than block responses
				}
				continue
			}
			c.events <- m
		}
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("the debugger closed the connection")
	}
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
}

// Do sends a request (its Seq and Type are set here) and returns its response; a response that
// says it failed is an error with the adapter's message.
func (c *dapClient) Do(ctx context.Context, req dap.RequestMessage) (dap.ResponseMessage, error) {
	r := req.GetRequest()
	ch := make(chan dap.ResponseMessage, 1)
	c.wmu.Lock()
	c.seq++
	r.Seq, r.Type = c.seq, "request"
	c.mu.Lock()
	c.pending[r.Seq] = ch
	c.mu.Unlock()
	err := dap.WriteProtocolMessage(c.conn, req)
	c.wmu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("debugger: send %s: %w", r.Command, err)
	}
	select {
	case resp := <-ch:
		if b := resp.GetResponse(); !b.Success {
			return resp, fmt.Errorf("debugger: %s: %s", r.Command, responseError(resp))
		}
		return resp, nil
	case <-c.done:
		return nil, fmt.Errorf("debugger: %s: %w", r.Command, c.closedErr())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Event returns the next event, in the order the adapter sent them.
func (c *dapClient) Event(ctx context.Context) (dap.EventMessage, error) {
	select {
	case e := <-c.events:
		return e, nil
	default:
	}
	select {
	case e := <-c.events:
		return e, nil
	case <-c.done:
		return nil, c.closedErr()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *dapClient) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *dapClient) Close() error { return c.conn.Close() }

// responseError is the message of a failed response: its error body's formatted text when it
// has one.
func responseError(resp dap.ResponseMessage) string {
	if e, ok := resp.(*dap.ErrorResponse); ok && e.Body.Error != nil && e.Body.Error.Format != "" {
		return e.Body.Error.Format
	}
	return resp.GetResponse().Message
}
