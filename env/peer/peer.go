// Package peer starts and reaches the real processes a model's env.Peer talks to: a server
// started from a command line on a free loopback port, or one already listening at an address,
// with an optional reset hook. It is the part of the I/O cache that touches the network and
// processes, kept out of package env, which the engine and every worker link and which must not
// import net.
package peer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/cmc-go/cmc/env"
)

// Config says how to start or reach a peer.
type Config struct {
	// Command starts the peer; "{port}" in an argument becomes a free loopback port. Empty: the
	// peer is already running at Addr.
	Command []string
	// Addr is where the peer listens (default "127.0.0.1:{port}").
	Addr string
	// Network is "tcp" (the default) or "udp": a datagram peer, for an env.Peer with
	// PeerOptions.Datagrams. A UDP peer started from Command is ready when it has bound its port;
	// one found at Addr is not probed (a datagram socket has no connection to try).
	Network string
	// Install says how to get Command's program, for the error when it is missing
	// ("apt-get install redis-server").
	Install string
	// Ready is how long the peer may take to accept connections (default 10s).
	Ready time.Duration
	// ReadTimeout is how long a physical read waits for the peer (default 2s); then the read
	// ends with a timeout, which the cache records like any answer.
	ReadTimeout time.Duration
	// Reset, when set, puts the peer back in its initial state (a peer whose state spans
	// connections needs it: env.PeerOptions.Shared). It may dial the peer itself.
	Reset func(s *Server) error
}

// A Server is a running peer.
type Server struct {
	Addr string
	cfg  Config
	cmd  *exec.Cmd
	out  *bytes.Buffer // the process's output, for errors
	done chan struct{} // closed when the process has exited
	err  error         // how it exited
}

// Start starts the peer (or finds it at Addr) and waits until it accepts connections.
func Start(c Config) (*Server, error) {
	if c.Ready == 0 {
		c.Ready = 10 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 2 * time.Second
	}
	switch c.Network {
	case "":
		c.Network = "tcp"
	case "tcp", "udp":
	default:
		return nil, fmt.Errorf("peer: network %q: give \"tcp\" or \"udp\"", c.Network)
	}
	s := &Server{cfg: c, Addr: c.Addr}
	port := ""
	if strings.Contains(c.Addr, "{port}") || (c.Addr == "" && len(c.Command) > 0) {
		p, err := freePort(c.Network)
		if err != nil {
			return nil, fmt.Errorf("find a free port for the peer: %w", err)
		}
		port = p
		if s.Addr == "" {
			s.Addr = "127.0.0.1:{port}"
		}
		s.Addr = strings.ReplaceAll(s.Addr, "{port}", port)
	}
	if s.Addr == "" {
		return nil, errors.New("peer: give a Command to start, or the Addr of a running peer")
	}
	if len(c.Command) > 0 {
		args := make([]string, len(c.Command))
		for i, a := range c.Command {
			args[i] = strings.ReplaceAll(a, "{port}", port)
		}
		s.cmd = exec.Command(args[0], args[1:]...)
		s.out = &bytes.Buffer{}
		s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
		s.cmd.SysProcAttr = dieWithParent()
		if err := s.cmd.Start(); err != nil {
			hint := ""
			if c.Install != "" {
				hint = " (install it: " + c.Install + ")"
			}
			return nil, fmt.Errorf("start peer %s: %w%s", strings.Join(args, " "), err, hint)
		}
		s.done = make(chan struct{})
		go func() { s.err = s.cmd.Wait(); close(s.done) }()
	}
	if err := s.waitReady(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func freePort(network string) (string, error) {
	var l io.Closer
	var a net.Addr
	if network == "udp" {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		l, a = c, c.LocalAddr()
	} else {
		c, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		l, a = c, c.Addr()
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(a.String())
	return port, err
}

// ready reports whether the peer is there: a TCP peer accepts a connection; a UDP peer has bound
// its port (binding it ourselves fails).
func (s *Server) ready() (bool, error) {
	if s.cfg.Network == "udp" {
		if s.cmd == nil {
			return true, nil
		}
		c, err := net.ListenPacket("udp", s.Addr)
		if err == nil {
			c.Close()
			return false, errors.New("the port is not bound")
		}
		return true, nil
	}
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return false, err
	}
	return true, c.Close()
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(s.cfg.Ready)
	for {
		ok, err := s.ready()
		if ok {
			return err
		}
		select {
		case <-s.done:
			return fmt.Errorf("peer %s exited before accepting connections (%v): %s", s.cfg.Command[0], s.err, strings.TrimSpace(s.out.String()))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("peer at %s does not accept connections after %v: %w", s.Addr, s.cfg.Ready, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops a peer Start started (a peer found at Addr is left running).
func (s *Server) Stop() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
	return nil
}

// Dialer is what an env.Peer reaches this server with: an env.Resetter too when Config.Reset
// is set.
func (s *Server) Dialer() env.Dialer {
	if s.cfg.Reset != nil {
		return resetDialer{dialer{s}}
	}
	return dialer{s}
}

type dialer struct{ s *Server }

func (d dialer) Dial() (io.ReadWriteCloser, error) {
	c, err := net.DialTimeout(d.s.cfg.Network, d.s.Addr, d.s.cfg.Ready)
	if err != nil {
		return nil, err
	}
	return &deadlineConn{c, d.s.cfg.ReadTimeout}, nil
}

type resetDialer struct{ dialer }

func (d resetDialer) Reset() error { return d.s.cfg.Reset(d.s) }

// deadlineConn bounds each physical read, and words its errors without addresses (they differ
// from run to run, and the cache records the text).
type deadlineConn struct {
	net.Conn
	timeout time.Duration
}

func (c *deadlineConn) Read(b []byte) (int, error) {
	if c.timeout > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(c.timeout))
	}
	n, err := c.Conn.Read(b)
	var ne net.Error
	switch {
	case err == nil || errors.Is(err, io.EOF):
	case errors.As(err, &ne) && ne.Timeout():
		err = fmt.Errorf("i/o timeout: the peer sent nothing for %v", c.timeout)
	case errors.Is(err, syscall.ECONNRESET):
		err = errors.New("connection reset by peer")
	case errors.Is(err, syscall.ECONNREFUSED): // a datagram to a port nobody has bound
		err = errors.New("connection refused")
	}
	return n, err
}
