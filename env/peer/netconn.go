package peer

import (
	"net"
	"time"

	"github.com/cmc-go/cmc/env"
)

// NetConn is c as a net.Conn, for client libraries that take one. Deadlines are accepted and
// ignored: in a check, a timeout is a choice the model makes (a read it decides came too late),
// not a clock.
func NetConn(c env.Conn) net.Conn { return netConn{c} }

type netConn struct{ env.Conn }

// addr is a fixed address, so nothing of a run's ports enters the state.
type addr string

func (a addr) Network() string { return "tcp" }
func (a addr) String() string  { return string(a) }

func (netConn) LocalAddr() net.Addr              { return addr("client") }
func (netConn) RemoteAddr() net.Addr             { return addr("peer") }
func (netConn) SetDeadline(time.Time) error      { return nil }
func (netConn) SetReadDeadline(time.Time) error  { return nil }
func (netConn) SetWriteDeadline(time.Time) error { return nil }
