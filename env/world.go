package env

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
)

// The physical side of the I/O cache. A world is a set of physical connections to the peer whose
// conversation so far is the history from the root of the tree to one node: in per-connection
// mode one connection, in shared mode one per connection the history opened. A read the cache
// cannot answer needs a world at the reader's position; when none is there, the cache makes one
// by replaying the history up to that position on fresh connections (after resetting the peer,
// in shared mode), and checks on the way that the peer answers as it did (else the peer is
// nondeterministic, reported with the position). A write beyond the cache needs a world in the
// same way. Opening and closing a connection in shared mode move a world that is there already,
// and otherwise wait in the tree for the replay that passes them.

type ioCache struct {
	t      *tree
	dialer Dialer
	opts   PeerOptions
	worlds []*world // oldest first
	stats  IOStats
	used   bool // a world was made: the peer's state is no longer its initial one
}

type world struct {
	at   *node
	phys map[string]io.ReadWriteCloser // by the events' connection key
}

// IOStats count what the cache did.
type IOStats struct {
	Dials       int // physical connections opened
	Replays     int // conversations replayed on fresh connections to reach a position
	Divergences int // writes that departed from what the cache held (a new branch)
	ReadCache   int // bytes read from the cache
	ReadPeer    int // bytes read from the peer for the first time
	WriteCache  int // bytes written that matched the cache (not sent)
	WritePeer   int // bytes written beyond the cache
	Replayed    int // bytes written and read again while replaying
}

func (s IOStats) String() string {
	return fmt.Sprintf("connections %d, replays %d, divergences %d, read %d B from cache and %d B from peer, wrote %d B matched and %d B sent, %d B replayed",
		s.Dials, s.Replays, s.Divergences, s.ReadCache, s.ReadPeer, s.WriteCache, s.WritePeer, s.Replayed)
}

// pos is where connection key stands, and the connection key its events carry.
func (c *ioCache) pos(p *Peer, key string) (*uint64, string) {
	if c.opts.Shared {
		return &p.At, key
	}
	return &p.conn(key).At, ""
}

func (c *ioCache) node(h uint64) *node {
	n, err := c.t.at(h)
	if err != nil {
		panic(&PeerError{c.opts.Name + ": " + err.Error()})
	}
	return n
}

func (c *ioCache) worldAt(n *node) *world {
	for _, w := range c.worlds {
		if w.at == n {
			return w
		}
	}
	return nil
}

func (c *ioCache) write(p *Peer, key string, b []byte) {
	pos, conn := c.pos(p, key)
	at, rest, diverged := c.t.matchWrite(c.node(*pos), conn, b)
	c.stats.WriteCache += len(b) - len(rest)
	if len(rest) > 0 {
		if diverged {
			c.stats.Divergences++
		}
		w := c.worldFor(at, key)
		at = c.t.extend(at, event{evWrite, conn, slices.Clone(rest)}, false)
		c.stats.WritePeer += len(rest)
		if _, err := w.phys[conn].Write(rest); err != nil {
			c.drop(w) // the peer went away: a read after this write replays it on a new connection
		} else {
			w.at = at
		}
	}
	*pos = at.hash
}

// read fills b from what the peer sent, or returns why the connection ended.
func (c *ioCache) read(p *Peer, key string, b []byte) (int, string) {
	pos, conn := c.pos(p, key)
	n := c.node(*pos)
	if k := n.stream(evRead, conn, 0); k != nil {
		got := 0
		for {
			if len(b)-got < len(k.ev.data) {
				k = c.t.split(k, len(b)-got)
			}
			got += copy(b[got:], k.ev.data)
			if k.chunkEnd || got == len(b) {
				break
			}
			k = k.stream(evRead, conn, 0) // the rest of the chunk, which a shorter read split off
		}
		*pos = k.hash
		c.stats.ReadCache += got
		return got, ""
	}
	for _, k := range n.kids {
		if k.ev.kind == evEnd && k.ev.conn == conn {
			*pos = k.hash
			return 0, string(k.ev.data)
		}
	}
	w := c.worldFor(n, key)
	m, err := w.phys[conn].Read(b)
	if m > 0 {
		c.stats.ReadPeer += m
		w.at = c.t.extend(n, event{evRead, conn, slices.Clone(b[:m])}, true)
		*pos = w.at.hash
		return m, ""
	}
	end := "EOF"
	if err == nil {
		err = io.ErrNoProgress
	}
	if !errors.Is(err, io.EOF) {
		end = err.Error()
	}
	w.at = c.t.extend(n, event{evEnd, conn, []byte(end)}, false)
	*pos = w.at.hash
	return 0, end
}

// open and close are the shared mode's connection events.
func (c *ioCache) open(p *Peer, key string) {
	n := c.node(p.At)
	w := c.worldAt(n)
	k := c.t.extend(n, event{evOpen, key, nil}, false)
	if w != nil {
		rw, err := c.dial()
		if err != nil {
			panic(err)
		}
		w.phys[key] = rw
		w.at = k
	}
	p.At = k.hash
}

func (c *ioCache) close(p *Peer, key string) {
	n := c.node(p.At)
	w := c.worldAt(n)
	k := c.t.extend(n, event{evClose, key, nil}, false)
	if w != nil {
		if rw := w.phys[key]; rw != nil {
			rw.Close()
			delete(w.phys, key)
		}
		w.at = k
	}
	p.At = k.hash
}

func (c *ioCache) dial() (io.ReadWriteCloser, error) {
	rw, err := c.dialer.Dial()
	if err != nil {
		return nil, &PeerError{fmt.Sprintf("%s: cannot connect: %v (is the peer running? the model starts it)", c.opts.Name, err)}
	}
	c.stats.Dials++
	return rw, nil
}

// worldFor returns a world at n, replaying the history up to n when none is there; key is the
// connection that needs it, for messages.
func (c *ioCache) worldFor(n *node, key string) *world {
	if w := c.worldAt(n); w != nil {
		return w
	}
	if c.opts.Shared {
		// Reset also before the first world: the peer may hold what an earlier run left.
		c.closeWorlds()
		r, ok := c.dialer.(Resetter)
		if !ok && c.used {
			panic(&PeerError{c.opts.Name + ": a shared peer needs a reset hook to replay a conversation: give the Dialer a Reset method"})
		}
		if ok {
			if err := r.Reset(); err != nil {
				panic(&PeerError{fmt.Sprintf("%s: reset: %v", c.opts.Name, err)})
			}
		}
	} else if len(c.worlds) >= c.opts.MaxOpen {
		c.drop(c.worlds[0])
	}
	w := &world{at: c.t.root, phys: map[string]io.ReadWriteCloser{}}
	c.worlds = append(c.worlds, w)
	c.used = true
	if !c.opts.Shared {
		rw, err := c.dial()
		if err != nil {
			c.drop(w)
			panic(err)
		}
		w.phys[""] = rw
	}
	sent := map[string]int{} // bytes of the peer's answers checked, by connection
	before := c.stats.Replayed
	for _, e := range n.path() {
		if !c.opts.Shared {
			e.conn = key // the physical connection stands for this one
		}
		if err := c.replay(w, e, sent); err != nil {
			c.drop(w)
			panic(err)
		}
	}
	if c.stats.Replayed > before {
		c.stats.Replays++
	}
	w.at = n
	return w
}

// replay does e again on w's connections.
func (c *ioCache) replay(w *world, e event, sent map[string]int) error {
	rw := w.phys[e.conn]
	if !c.opts.Shared {
		rw = w.phys[""]
	}
	if rw == nil && e.kind != evOpen {
		return &PeerError{fmt.Sprintf("%s: replay: connection %q is not open", c.opts.Name, e.conn)}
	}
	if c.opts.Datagrams && e.kind != evOpen && e.kind != evClose {
		return c.replayDatagram(rw, e, sent)
	}
	switch e.kind {
	case evOpen:
		r, err := c.dial()
		if err != nil {
			return err
		}
		w.phys[e.conn] = r
	case evClose:
		rw.Close()
		delete(w.phys, e.conn)
	case evWrite:
		c.stats.Replayed += len(e.data)
		if _, err := rw.Write(e.data); err != nil {
			return &PeerError{fmt.Sprintf("%s: replay: write on connection %q: %v", c.opts.Name, e.conn, err)}
		}
	case evRead:
		c.stats.Replayed += len(e.data)
		got := make([]byte, len(e.data))
		m, err := io.ReadFull(rw, got)
		if m < len(got) || !bytes.Equal(got, e.data) {
			return c.nondeterministic(e.conn, sent[e.conn], e.data, got[:m], err)
		}
		sent[e.conn] += len(got)
	case evEnd:
		var one [1]byte
		m, err := rw.Read(one[:])
		if m > 0 {
			return c.nondeterministic(e.conn, sent[e.conn], nil, one[:m], nil)
		}
		if (string(e.data) == "EOF") != errors.Is(err, io.EOF) {
			return c.nondeterministic(e.conn, sent[e.conn], e.data, nil, err)
		}
	}
	return nil
}

func (c *ioCache) nondeterministic(conn string, at int, want, got []byte, err error) error {
	how := "answered " + strconv.Quote(string(got))
	if len(got) < len(want) && err != nil {
		how += " and then " + err.Error()
	}
	if want == nil {
		want = []byte("the end of the connection")
	}
	return &PeerError{fmt.Sprintf("%s is nondeterministic: on connection %q at byte %d of its answers it %s where, to the same bytes, it had answered %s",
		c.opts.Name, conn, at, how, strconv.Quote(string(want)))}
}

// drop closes w's connections and forgets it.
func (c *ioCache) drop(w *world) {
	for _, k := range slices.Sorted(maps.Keys(w.phys)) {
		w.phys[k].Close()
	}
	c.worlds = slices.DeleteFunc(c.worlds, func(x *world) bool { return x == w })
}

func (c *ioCache) closeWorlds() {
	for len(c.worlds) > 0 {
		c.drop(c.worlds[0])
	}
}
