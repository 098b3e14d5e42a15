// Package redis checks a Redis client against a real Redis server (redis-server, from Debian's
// package of that name) through the I/O cache: the client, with its retries and the timeouts
// that trigger them chosen by the checker, is model checked; the server runs natively, and the
// cache replays what it already said when the search backtracks. Redis is the peer because its
// replies are a plain function of the commands sent (INCR answers the new count), its state spans
// connections (a retry on a new connection sees what the first did), and a retry that repeats a
// non-idempotent command is a classic bug of real clients.
package redis

import (
	"errors"
	"io"
	"strconv"
)

// A Counter counts a page's hits in Redis, one INCR per hit, and retries a command whose reply
// is late: the code under test.
type Counter struct {
	Key     string
	Retries int  // retries after a late reply
	Fixed   bool // the corrected retry policy
	Session Session
	Open    bool
}

// Conns opens the Counter's connection to Redis and finds it again (the model's env.Peer).
type Conns interface {
	Dial()
	Conn() io.ReadWriteCloser
}

// script increments KEYS[1] once per request id KEYS[2]: a retry of the same request finds the id
// set and returns the count without incrementing again.
const script = `if redis.call('SET', KEYS[2], '1', 'NX') then return redis.call('INCR', KEYS[1]) end return tonumber(redis.call('GET', KEYS[1]))`

// Hit counts request req once and returns the count.
func (c *Counter) Hit(conns Conns, req int) (int64, error) {
	for try := 0; ; try++ {
		if !c.Open {
			conns.Dial()
			c.Open, c.Session.Buf = true, nil
		}
		c.Session.RW = conns.Conn()
		var r Reply
		var err error
		if c.Fixed {
			r, err = c.Session.Do("EVAL", script, "2", c.Key, c.Key+":req:"+strconv.Itoa(req))
		} else {
			r, err = c.Session.Do("INCR", c.Key)
		}
		if err == nil && r.Kind == '-' {
			err = errors.New("redis: " + r.Str)
		}
		if err == nil {
			return r.Int, nil
		}
		if !isTimeout(err) || try == c.Retries {
			return 0, err
		}
		if c.Fixed {
			// The late reply may still come on this connection and would answer the retry: start
			// a new one. The request id makes the retry harmless if the first one ran.
			conns.Conn().Close()
			c.Open = false
		}
	}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
