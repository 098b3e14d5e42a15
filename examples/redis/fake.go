package redis

import (
	"bytes"
	"io"
	"strconv"
	"strings"
)

// fake is an in-process stand-in for redis-server that knows the commands the model sends
// (INCR, GET, the Counter's EVAL script, FLUSHALL): the same client checked against it measures
// what the real server and the loopback cost (docs/performance.md), and the example's test runs
// where redis-server is not installed.
type fake struct{ keys map[string]int64 }

func newFake() *fake { return &fake{keys: map[string]int64{}} }

func (f *fake) Reset() error { clear(f.keys); return nil }

func (f *fake) Dial() (io.ReadWriteCloser, error) { return &fakeConn{f: f}, nil }

type fakeConn struct {
	f       *fake
	in, out []byte
}

func (c *fakeConn) Close() error { return nil }

func (c *fakeConn) Read(b []byte) (int, error) {
	if len(c.out) == 0 {
		return 0, &timeoutErr{}
	}
	n := copy(b, c.out)
	c.out = c.out[n:]
	return n, nil
}

type timeoutErr struct{}

func (*timeoutErr) Error() string { return "i/o timeout: the peer sent nothing" }
func (*timeoutErr) Timeout() bool { return true }

func (c *fakeConn) Write(b []byte) (int, error) {
	c.in = append(c.in, b...)
	for {
		args, rest, ok := parseCommand(c.in)
		if !ok {
			return len(b), nil
		}
		c.in = rest
		c.out = append(c.out, c.f.do(args)...)
	}
}

func (f *fake) do(a []string) string {
	num := func(n int64) string { return ":" + strconv.FormatInt(n, 10) + "\r\n" }
	switch {
	case len(a) == 2 && strings.EqualFold(a[0], "INCR"):
		f.keys[a[1]]++
		return num(f.keys[a[1]])
	case len(a) == 2 && strings.EqualFold(a[0], "GET"):
		v, ok := f.keys[a[1]]
		if !ok {
			return "$-1\r\n"
		}
		s := strconv.FormatInt(v, 10)
		return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n"
	case len(a) == 5 && strings.EqualFold(a[0], "EVAL") && a[1] == script:
		if _, done := f.keys[a[4]]; !done {
			f.keys[a[4]] = 1
			f.keys[a[3]]++
		}
		return num(f.keys[a[3]])
	case len(a) == 1 && strings.EqualFold(a[0], "FLUSHALL"):
		clear(f.keys)
		return "+OK\r\n"
	}
	return "-ERR the fake does not know " + strconv.Quote(strings.Join(a, " ")) + "\r\n"
}

// parseCommand takes one RESP array of bulk strings off the front of b.
func parseCommand(b []byte) ([]string, []byte, bool) {
	line := func() (string, bool) {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			return "", false
		}
		l := string(b[:i])
		b = b[i+2:]
		return l, true
	}
	h, ok := line()
	if !ok || !strings.HasPrefix(h, "*") {
		return nil, nil, false
	}
	n, _ := strconv.Atoi(h[1:])
	args := make([]string, 0, n)
	for range n {
		l, ok := line()
		if !ok || !strings.HasPrefix(l, "$") {
			return nil, nil, false
		}
		size, _ := strconv.Atoi(l[1:])
		if len(b) < size+2 {
			return nil, nil, false
		}
		args = append(args, string(b[:size]))
		b = b[size+2:]
	}
	return args, b, true
}
