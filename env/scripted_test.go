package env

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// scripted is an in-process peer for the cache's transcripts: a line protocol with a counter
// store that spans connections, as a small database's does. It answers each line as one chunk:
//
//	INCR k -> :n     GET k -> $n     ECHO x -> x     QUIT -> +BYE, then EOF
//
// A read with no answer pending fails as a timed-out read would. Everything it sees and does is
// logged, so a transcript shows what reached the peer and what the cache answered alone.
type scripted struct {
	greet   bool           // send "+HELLO" on connect
	jitter  bool           // answer ECHO with the dial's number appended: a nondeterministic peer
	counter map[string]int // the store
	dials   int
	log     []string
}

type scriptedConn struct {
	s       *scripted
	n       int      // the dial's number, from 1
	in      string   // unparsed input
	out     []string // answers pending, one chunk each
	closing bool     // after QUIT's answer, EOF
	closed  bool
}

func newScripted() *scripted { return &scripted{counter: map[string]int{}} }

func (s *scripted) Dial() (io.ReadWriteCloser, error) {
	s.dials++
	c := &scriptedConn{s: s, n: s.dials}
	s.logf("#%d dial", c.n)
	if s.greet {
		c.out = append(c.out, "+HELLO\n")
	}
	return c, nil
}

// resettable is a scripted peer with a reset hook.
type resettable struct{ *scripted }

func (r resettable) Reset() error {
	r.logf("reset")
	r.counter = map[string]int{}
	return nil
}

func (s *scripted) logf(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

func (c *scriptedConn) Write(b []byte) (int, error) {
	if c.closed {
		return 0, errors.New("write on closed connection")
	}
	c.s.logf("#%d <- %q", c.n, b)
	c.in += string(b)
	for {
		line, rest, ok := strings.Cut(c.in, "\n")
		if !ok {
			return len(b), nil
		}
		c.in = rest
		cmd, arg, _ := strings.Cut(line, " ")
		switch cmd {
		case "INCR":
			c.s.counter[arg]++
			c.out = append(c.out, ":"+strconv.Itoa(c.s.counter[arg])+"\n")
		case "GET":
			c.out = append(c.out, "$"+strconv.Itoa(c.s.counter[arg])+"\n")
		case "ECHO":
			if c.s.jitter {
				arg += strconv.Itoa(c.n)
			}
			c.out = append(c.out, arg+"\n")
		case "QUIT":
			c.out = append(c.out, "+BYE\n")
			c.closing = true
		default:
			c.out = append(c.out, "-ERR unknown "+strconv.Quote(cmd)+"\n")
		}
	}
}

func (c *scriptedConn) Read(b []byte) (int, error) {
	if len(c.out) == 0 {
		if c.closing || c.closed {
			c.s.logf("#%d -> EOF", c.n)
			return 0, io.EOF
		}
		c.s.logf("#%d -> (nothing: timeout)", c.n)
		return 0, errors.New("read: i/o timeout")
	}
	n := copy(b, c.out[0])
	c.s.logf("#%d -> %q", c.n, c.out[0][:n])
	if n == len(c.out[0]) {
		c.out = c.out[1:]
	} else {
		c.out[0] = c.out[0][n:]
	}
	return n, nil
}

func (c *scriptedConn) Close() error {
	if !c.closed {
		c.closed = true
		c.s.logf("#%d close", c.n)
	}
	return nil
}
