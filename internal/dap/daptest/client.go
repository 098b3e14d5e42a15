// Package daptest is a DAP client for tests of cmcdap's debug adapter, after Delve's
// service/dap/daptest: it sends requests and reads messages, and its Expect helpers read the
// next message of a type (failing the test on anything else), so a test reads as a transcript
// of the conversation:
//
//	c.LaunchRequest(map[string]any{"program": dir}) // 2 >> launch, << initialized, << launch
//	daptest.Expect[*dap.InitializedEvent](t, c)
//	daptest.Expect[*dap.LaunchResponse](t, c)
//
// Events whose timing is not the test's business (output, progress, breakpoint changes) are set
// aside while waiting for another message, and a later Expect of their type takes them from
// there; Output returns the output text seen so far.
package daptest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-dap"
)

// A Client is one connection to a debug adapter.
type Client struct {
	conn  io.ReadWriteCloser
	r     *bufio.Reader
	codec *dap.Codec
	seq   int

	msgs chan any // dap.Message or error, read ahead by a goroutine
	mu   sync.Mutex
	out  strings.Builder
	set  []dap.Message // set-aside events, for inspection

	// Timeout bounds every wait for a message (default 60s: a launch builds a worker).
	Timeout time.Duration
}

// NewClient starts a client on conn.
func NewClient(conn io.ReadWriteCloser) *Client {
	c := &Client{conn: conn, r: bufio.NewReader(conn), codec: dap.NewCodec(), msgs: make(chan any, 1024), Timeout: 60 * time.Second}
	go c.readLoop()
	return c
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

func (c *Client) readLoop() {
	for {
		b, err := dap.ReadBaseMessage(c.r)
		if err != nil {
			c.msgs <- err
			close(c.msgs)
			return
		}
		m, err := c.codec.DecodeMessage(b)
		if err != nil {
			m, err = decodeCustom(b, err)
		}
		if err != nil {
			c.msgs <- fmt.Errorf("decode %s: %w", b, err)
			continue
		}
		c.msgs <- m
	}
}

// A CustomResponse is the response to a request go-dap does not know (cmc/...).
type CustomResponse struct {
	dap.Response
	Body json.RawMessage `json:"body,omitempty"`
}

// A CustomEvent is an event go-dap does not know (cmc/views).
type CustomEvent struct {
	dap.Event
	Body json.RawMessage `json:"body,omitempty"`
}

// Decode decodes the body into v.
func (r *CustomResponse) Decode(v any) error { return json.Unmarshal(r.Body, v) }

func decodeCustom(b []byte, err error) (dap.Message, error) {
	var field *dap.DecodeProtocolMessageFieldError
	if !errors.As(err, &field) {
		return nil, err
	}
	switch field.SubType {
	case "Response":
		var r CustomResponse
		return &r, json.Unmarshal(b, &r)
	case "Event":
		var e CustomEvent
		return &e, json.Unmarshal(b, &e)
	}
	return nil, err
}

// Send sends a request with the given command and arguments and returns its seq.
func (c *Client) Send(command string, args any) int {
	c.seq++
	m := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		m["arguments"] = args
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	if err := dap.WriteBaseMessage(c.conn, b); err != nil {
		panic(fmt.Sprintf("daptest: send %s: %v", command, err))
	}
	return c.seq
}

// SendRaw sends bytes as one message, as a broken client might.
func (c *Client) SendRaw(b []byte) {
	if err := dap.WriteBaseMessage(c.conn, b); err != nil {
		panic(fmt.Sprintf("daptest: send: %v", err))
	}
}

// Read returns the next message, or an error when the connection ended or the wait timed out.
func (c *Client) Read() (dap.Message, error) {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			return nil, io.EOF
		}
		if err, isErr := m.(error); isErr {
			return nil, err
		}
		return m.(dap.Message), nil
	case <-time.After(c.Timeout):
		return nil, fmt.Errorf("no message within %s", c.Timeout)
	}
}

// Output returns the text of the output events seen so far.
func (c *Client) Output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// SetAside returns the events set aside while waiting for others.
func (c *Client) SetAside() []dap.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]dap.Message(nil), c.set...)
}

// incidental events arrive when they arrive: Expect sets them aside unless it waits for one.
func incidental(m dap.Message) bool {
	switch m.(type) {
	case *dap.OutputEvent, *dap.ProgressStartEvent, *dap.ProgressUpdateEvent, *dap.ProgressEndEvent,
		*dap.BreakpointEvent, *CustomEvent:
		return true
	}
	return false
}

func (c *Client) keep(m dap.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := m.(*dap.OutputEvent); ok {
		c.out.WriteString(o.Body.Output)
	}
	c.set = append(c.set, m)
}

// Expect reads the next message, which must be a T (incidental events are set aside first).
func Expect[T dap.Message](t testing.TB, c *Client) T {
	t.Helper()
	var zero T
	want := reflect.TypeOf(zero)
	if m, ok := takeAside[T](c); ok {
		return m
	}
	for {
		m, err := c.Read()
		if err != nil {
			t.Fatalf("want %v: %v", want, err)
		}
		if got, ok := m.(T); ok {
			if o, ok := m.(*dap.OutputEvent); ok {
				c.mu.Lock()
				c.out.WriteString(o.Body.Output)
				c.mu.Unlock()
			}
			return got
		}
		if incidental(m) {
			c.keep(m)
			continue
		}
		t.Fatalf("want %v, got %s", want, describe(m))
	}
}

// takeAside returns the first set-aside event of type T, removing it: an incidental event may
// arrive before the message a test waited for first.
func takeAside[T dap.Message](c *Client) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range c.set {
		if got, ok := m.(T); ok {
			c.set = append(c.set[:i:i], c.set[i+1:]...)
			return got, true
		}
	}
	var zero T
	return zero, false
}

// ExpectError reads the next message, which must be an error response whose message contains
// each of parts.
func ExpectError(t testing.TB, c *Client, parts ...string) *dap.ErrorResponse {
	t.Helper()
	r := Expect[*dap.ErrorResponse](t, c)
	for _, p := range parts {
		if !strings.Contains(r.Message, p) {
			t.Fatalf("error %q does not contain %q", r.Message, p)
		}
	}
	return r
}

// ExpectStopped reads the next message, which must be a stopped event with the reason.
func ExpectStopped(t testing.TB, c *Client, reason string) *dap.StoppedEvent {
	t.Helper()
	e := Expect[*dap.StoppedEvent](t, c)
	if e.Body.Reason != reason {
		t.Fatalf("stopped for %q (%s), want %q", e.Body.Reason, e.Body.Text, reason)
	}
	return e
}

// ExpectCustom reads the response to a custom request and decodes its body into v.
func ExpectCustom(t testing.TB, c *Client, command string, v any) *CustomResponse {
	t.Helper()
	r := Expect[*CustomResponse](t, c)
	if r.Command != command {
		t.Fatalf("response to %s, want %s", r.Command, command)
	}
	if v != nil {
		if err := r.Decode(v); err != nil {
			t.Fatalf("%s: decode body %s: %v", command, r.Body, err)
		}
	}
	return r
}

// ExpectEnd reads until the connection ends.
func ExpectEnd(t testing.TB, c *Client) {
	t.Helper()
	for {
		m, err := c.Read()
		if err != nil {
			return
		}
		if !incidental(m) {
			t.Fatalf("want the end of the conversation, got %s", describe(m))
		}
	}
}

func describe(m dap.Message) string {
	b, _ := json.Marshal(m)
	if len(b) > 600 {
		b = append(b[:600], "…"...)
	}
	return fmt.Sprintf("%T %s", m, b)
}
