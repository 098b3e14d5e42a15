package redis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// A Reply is one RESP reply.
type Reply struct {
	Kind byte   // '+' status, '-' error, ':' integer, '$' bulk string, '*' array (length only)
	Str  string // status, error or bulk text
	Int  int64  // integer, or a bulk or array length (-1: nil)
}

func (r Reply) String() string {
	switch r.Kind {
	case ':':
		return ":" + strconv.FormatInt(r.Int, 10)
	case '$':
		if r.Int < 0 {
			return "(nil)"
		}
		return strconv.Quote(r.Str)
	}
	return string(r.Kind) + r.Str
}

// A Session is a client's end of one Redis connection: what it has read and not yet parsed is
// part of it (Buf), so a session kept in a process's state survives between handler runs.
type Session struct {
	RW  io.ReadWriter `cmc:"-"`
	Buf []byte
}

// Do sends a command and reads its reply.
func (s *Session) Do(args ...string) (Reply, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := s.RW.Write(b.Bytes()); err != nil {
		return Reply{}, err
	}
	return s.Read()
}

// Read reads one reply.
func (s *Session) Read() (Reply, error) {
	line, err := s.line()
	if err != nil {
		return Reply{}, err
	}
	if len(line) == 0 {
		return Reply{}, errors.New("redis: empty reply line")
	}
	r := Reply{Kind: line[0]}
	switch r.Kind {
	case '+', '-':
		r.Str = string(line[1:])
	case ':', '$', '*':
		if r.Int, err = strconv.ParseInt(string(line[1:]), 10, 64); err != nil {
			return r, fmt.Errorf("redis: bad length or integer %q", line)
		}
		if r.Kind == '$' && r.Int >= 0 {
			for int64(len(s.Buf)) < r.Int+2 {
				if err := s.fill(); err != nil {
					return r, err
				}
			}
			r.Str = string(s.Buf[:r.Int])
			s.Buf = s.Buf[r.Int+2:]
		}
	default:
		return r, fmt.Errorf("redis: unknown reply %q", line)
	}
	return r, nil
}

// line reads up to CRLF.
func (s *Session) line() ([]byte, error) {
	for {
		if i := bytes.Index(s.Buf, []byte("\r\n")); i >= 0 {
			l := s.Buf[:i:i]
			s.Buf = s.Buf[i+2:]
			return l, nil
		}
		if err := s.fill(); err != nil {
			return nil, err
		}
	}
}

func (s *Session) fill() error {
	var b [512]byte
	n, err := s.RW.Read(b[:])
	s.Buf = append(s.Buf, b[:n]...)
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}
