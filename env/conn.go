package env

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc"
)

// A Dialer opens a physical connection to a real peer (a server process the checker does not
// control). env/peer dials TCP; a test supplies a scripted peer.
type Dialer interface {
	Dial() (io.ReadWriteCloser, error)
}

// A Resetter is a Dialer whose peer can be put back in its initial state: a peer whose state
// spans connections (a database) needs it so that a path can be replayed from the start.
type Resetter interface {
	Reset() error
}

// ErrClosed is returned by operations on a connection the program closed.
var ErrClosed = errors.New("use of closed connection")

// A Peer is an environment component that stands for a real process the program talks to: its
// state is the program's positions in the conversations with it, and the I/O cache (outside the
// state) holds what was said. Reads the cache knows are answered from it, writes it knows are
// compared with it, and only what lies beyond touches a physical connection; where a path writes
// something the cache does not hold, the cache replays that path's conversation on a fresh
// connection. Register it with Model.Environment; open connections with Dial in handlers.
type Peer struct {
	Conns []ConnState
	// At is the position of the whole history in shared mode (PeerOptions.Shared).
	At uint64
	// instance points at a package-level variable, which tells the engine (canon's globals) that
	// this state means something outside the checked values: positions name bytes only this
	// instance's cache holds, so the search keeps to one instance (engine/parallel.go).
	instance *byte
	cache    *ioCache `cmc:"-"`
}

var oneInstance byte

// A ConnState is one open connection's part of the state. Connections are kept sorted by key, so
// two paths that opened the same connections in different orders reach the same state, and a
// closed connection leaves the state.
type ConnState struct {
	Key   string // the name the program gave it (Dial)
	At    uint64 // the position of this connection's conversation (per-connection mode)
	End   string // the peer ended it ("EOF" or the read error): reads return it again
	Wrote int    // bytes written, for people (the position decides them)
	Read  int    // bytes read
}

// PeerOptions configure a Peer.
type PeerOptions struct {
	// Name is the peer's name in traces ("redis").
	Name string
	// Shared says the peer's answers on one connection may depend on what was said on another
	// (its state spans connections, as a database's does). The cache then keeps one history for
	// all connections, and replaying a path first resets the peer, so the Dialer must be a
	// Resetter. Otherwise each connection's answers may depend only on what was sent on it, and
	// each connection has its own position.
	Shared bool
	// MaxOpen is how many physical connections the cache keeps for backtracking (default 8) in
	// per-connection mode; past it the oldest is closed, and replayed if needed again.
	MaxOpen int
	// Confirm makes a replay of a stored trace first replay the conversations the trace recorded
	// on the peer (Learn), to confirm that the peer still answers them with the same bytes.
	Confirm bool
	// Datagrams says the connections are datagram sockets (UDP): each Write sends one datagram
	// and each Read returns one (cut to the buffer), and the cache keeps each as a unit
	// (datagram.go). The Dialer must return connections that keep datagram boundaries
	// (env/peer: Config.Network "udp").
	Datagrams bool
}

// NewPeer returns a Peer that reaches its peer through d.
func NewPeer(d Dialer, o PeerOptions) *Peer {
	if o.MaxOpen <= 0 {
		o.MaxOpen = 8
	}
	if o.Name == "" {
		o.Name = "peer"
	}
	p := &Peer{instance: &oneInstance, cache: &ioCache{t: newTree(), dialer: d, opts: o}}
	if o.Shared {
		p.At = rootHash
	}
	return p
}

// A Conn is a connection to the peer as a handler uses it: an io.ReadWriteCloser named by the
// key it was dialled with (Peer.Conn finds it again in a later handler). env/peer turns it into a
// net.Conn for client libraries.
type Conn struct {
	p   *Peer
	key string
}

// Dial opens a new connection named key (a client's name, "audit": what tells this connection
// from the others, not the order they were opened in) and returns it. A key whose connection is
// open is a mistake in the model; a closed one's key may be dialled again.
func (p *Peer) Dial(key string) Conn {
	i, found := p.find(key)
	if found {
		panic(fmt.Sprintf("env: %s: connection %q is open already: close it first, or give each connection its own key", p.cache.opts.Name, key))
	}
	p.Conns = slices.Insert(p.Conns, i, ConnState{Key: key, At: rootHash})
	if p.cache.opts.Shared {
		p.Conns[i].At = 0
		p.cache.open(p, key)
	}
	p.note(NoteOpen, key, nil)
	return Conn{p, key}
}

// Conn returns the open connection named key; on one that is not open, operations return
// ErrClosed.
func (p *Peer) Conn(key string) Conn { return Conn{p, key} }

// Open reports whether the connection named key is open.
func (p *Peer) Open(key string) bool {
	_, found := p.find(key)
	return found
}

func (p *Peer) find(key string) (int, bool) {
	return slices.BinarySearchFunc(p.Conns, key, func(c ConnState, k string) int { return strings.Compare(c.Key, k) })
}

// conn is the state of the open connection key, or nil.
func (p *Peer) conn(key string) *ConnState {
	if i, found := p.find(key); found {
		return &p.Conns[i]
	}
	return nil
}

// Stats returns what the cache did so far.
func (p *Peer) Stats() IOStats { return p.cache.stats }

// RunSummary is the cache's statistics, for the check's summary (cmcdap check prints it).
func (p *Peer) RunSummary() string { return "I/O cache: " + p.cache.stats.String() }

// Shutdown closes every physical connection (the cache keeps what it learnt).
func (p *Peer) Shutdown() { p.cache.closeWorlds() }

// Key is the connection's name.
func (c Conn) Key() string { return c.key }

// Write writes b to the peer: compared with the cache where a path has written here before,
// sent on a physical connection beyond. On a datagram socket b is one datagram.
func (c Conn) Write(b []byte) (int, error) {
	st := c.p.conn(c.key)
	if st == nil {
		return 0, ErrClosed
	}
	if len(b) == 0 {
		return 0, nil
	}
	if c.p.cache.opts.Datagrams {
		c.p.cache.send(c.p, c.key, b)
	} else {
		c.p.cache.write(c.p, c.key, b)
	}
	st.Wrote += len(b)
	c.p.note(NoteWrite, c.key, b)
	return len(b), nil
}

// Read reads what the peer sent: from the cache where a path has read here before (the same
// chunks, so reads are deterministic), from a physical connection beyond. On a datagram socket
// it returns one datagram.
func (c Conn) Read(b []byte) (int, error) {
	st := c.p.conn(c.key)
	if st == nil {
		return 0, ErrClosed
	}
	if c.p.cache.opts.Datagrams {
		if len(b) == 0 {
			return 0, nil
		}
		return c.readDatagram(b)
	}
	if st.End != "" {
		return 0, endError(st.End)
	}
	if len(b) == 0 {
		return 0, nil
	}
	n, end := c.p.cache.read(c.p, c.key, b)
	if end != "" {
		st.End = end
		c.p.note(NoteEnd, c.key, []byte(end))
		return 0, endError(end)
	}
	st.Read += n
	c.p.note(NoteRead, c.key, b[:n])
	return n, nil
}

// Close closes the connection, which leaves the state: simulated, since a path that backtracks
// may need the physical one again (in shared mode the peer sees the close).
func (c Conn) Close() error {
	i, found := c.p.find(c.key)
	if !found {
		return ErrClosed
	}
	c.p.Conns = slices.Delete(c.p.Conns, i, i+1)
	if c.p.cache.opts.Shared {
		c.p.cache.close(c.p, c.key)
	}
	c.p.note(NoteClose, c.key, nil)
	return nil
}

// A PeerError is a failure of the peer, not of the program: it could not be reached, or it
// answered the same bytes differently. Operations panic with it, so the check reports it as a
// violation with the trace that met it.
type PeerError struct{ Msg string }

func (e *PeerError) Error() string { return e.Msg }

// An EndError is a read error the peer's side gave (a timeout on a physical connection); io.EOF
// is returned as itself.
type EndError struct{ Msg string }

func (e *EndError) Error() string { return e.Msg }

// Timeout reports true, as a net.Error's: the physical read found no data in time.
func (e *EndError) Timeout() bool { return true }

func endError(s string) error {
	if s == "EOF" {
		return io.EOF
	}
	return &EndError{s}
}

// Note kinds of a Peer's operations, so traces, trace show and the debugger's Connections scope
// can tell a conversation from other notes (tracefmt.Conversations reads them).
const (
	NoteOpen  = "io-open"  // To: the connection ("redis/web")
	NoteWrite = "io-write" // To: the connection; Msg: the bytes, quoted
	NoteRead  = "io-read"  // From: the connection; Msg: the bytes, quoted
	NoteEnd   = "io-end"   // From: the connection; Msg: why, quoted ("EOF")
	NoteClose = "io-close" // To: the connection
)

// note records the exchange for the trace.
func (p *Peer) note(kind string, key string, data []byte) {
	if !cmc.Noting() {
		return
	}
	conn := p.cache.opts.Name
	if key != "" {
		conn += "/" + key
	}
	n := cmc.Note{Kind: kind, To: conn}
	if kind == NoteRead || kind == NoteEnd {
		n = cmc.Note{Kind: kind, From: conn}
	}
	if len(data) > 0 {
		n.Msg = strconv.Quote(string(data))
	}
	cmc.Record(n)
}
