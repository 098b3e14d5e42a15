package env

import (
	"bytes"
	"io"
	"slices"
)

// Datagrams: a Peer with PeerOptions.Datagrams stands for datagram sockets (UDP, connected to
// the peer), where a Write sends one datagram and a Read returns one. The cache keeps each
// datagram as an event of its own, never joined with the next or split: a read the cache knows
// is answered with the datagram recorded there, a write is compared with the datagrams sent
// there, and a path diverges where it sends a datagram the cache does not hold at its position.
// A read that found no datagram (a timeout; a refused port) is recorded too, and does not end
// the socket: a later read may find one.

const (
	evSend eventKind = 'd' // the program sent the datagram Data
	evRecv eventKind = 'g' // the datagram Data arrived
)

// maxDatagram is the buffer a physical read uses, so the cache records whole datagrams however
// small the program's buffer (a UDP read into a shorter buffer gets the datagram's first bytes
// and loses the rest, as the program's read does here).
const maxDatagram = 64 << 10

// send sends the datagram b on connection key.
func (c *ioCache) send(p *Peer, key string, b []byte) {
	pos, conn := c.pos(p, key)
	n := c.node(*pos)
	e := event{evSend, conn, slices.Clone(b)}
	if k := n.child(e); k != nil {
		c.stats.WriteCache += len(b)
		*pos = k.hash
		return
	}
	if len(n.kids) > 0 {
		c.stats.Divergences++
	}
	w := c.worldFor(n, key)
	k := c.t.extend(n, e, false)
	c.stats.WritePeer += len(b)
	if _, err := w.phys[conn].Write(b); err != nil {
		c.drop(w)
	} else {
		w.at = k
	}
	*pos = k.hash
}

// receive returns the next datagram on connection key, or why none came.
func (c *ioCache) receive(p *Peer, key string) ([]byte, string) {
	pos, conn := c.pos(p, key)
	n := c.node(*pos)
	for _, k := range n.kids {
		if k.ev.conn == conn && (k.ev.kind == evRecv || k.ev.kind == evEnd) {
			*pos = k.hash
			if k.ev.kind == evEnd {
				return nil, string(k.ev.data)
			}
			c.stats.ReadCache += len(k.ev.data)
			return k.ev.data, ""
		}
	}
	w := c.worldFor(n, key)
	buf := make([]byte, maxDatagram)
	m, err := w.phys[conn].Read(buf)
	e := event{evRecv, conn, slices.Clone(buf[:m])}
	if err != nil {
		e = event{evEnd, conn, []byte(err.Error())}
	} else {
		c.stats.ReadPeer += m
	}
	w.at = c.t.extend(n, e, false)
	*pos = w.at.hash
	if err != nil {
		return nil, err.Error()
	}
	return e.data, ""
}

// replayDatagram does e (a datagram sent or received, or none received) again on rw.
func (c *ioCache) replayDatagram(rw io.ReadWriter, e event, sent map[string]int) error {
	if e.kind == evSend {
		c.stats.Replayed += len(e.data)
		if _, err := rw.Write(e.data); err != nil {
			return &PeerError{c.opts.Name + ": replay: send on connection " + e.conn + ": " + err.Error()}
		}
		return nil
	}
	buf := make([]byte, maxDatagram)
	m, err := rw.Read(buf)
	switch {
	case e.kind == evEnd && err == nil:
		return c.nondeterministic(e.conn, sent[e.conn], []byte("no datagram: "+string(e.data)), buf[:m], nil)
	case e.kind == evRecv && (err != nil || !bytes.Equal(buf[:m], e.data)):
		return c.nondeterministic(e.conn, sent[e.conn], e.data, buf[:m], err)
	}
	c.stats.Replayed += m
	sent[e.conn] += m
	return nil
}

// readDatagram is Conn.Read on a datagram socket: the next datagram, cut to b as a UDP read cuts
// it; the note quotes the whole datagram, which is what the position names.
func (c Conn) readDatagram(b []byte) (int, error) {
	d, end := c.p.cache.receive(c.p, c.key)
	if end != "" {
		c.p.note(NoteEnd, c.key, []byte(end))
		return 0, endError(end)
	}
	c.p.conn(c.key).Read += len(d)
	c.p.note(NoteRead, c.key, d)
	return copy(b, d), nil
}
