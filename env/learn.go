package env

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc"
)

// Learning a stored trace's conversations. A trace's steps carry a note per operation of a Peer
// (io-open, io-write, io-read, io-end, io-close) with the bytes, in the order they happened: that
// is the conversation of the trace's path, which is all a replay of the trace asks of the cache.
// Learn puts it into the tree, so a replay answers every read of the path from the trace itself
// and needs the peer only where it departs from the path.

// Learn adds to the cache the conversations that notes record (a stored trace's notes, every
// step's in order; other components' notes are skipped). The replayer calls it before replaying
// a trace (replay.Open). Where the notes contradict what the cache holds (the trace came from a
// peer that answers otherwise now), learning that connection stops there: the replay then meets
// the cache's answer and reports the step where the state differs.
//
// With PeerOptions.Confirm it then replays each learnt conversation on the real peer, checking
// that the peer sends the same bytes (however the network splits them), and returns the
// PeerError that says where it did not, or why the peer could not be reached.
func (p *Peer) Learn(notes []cmc.Note) (err error) {
	l := learner{t: p.cache.t, shared: p.cache.opts.Shared, datagrams: p.cache.opts.Datagrams, at: map[string]*node{}}
	if l.shared {
		l.at[""] = l.t.root
	}
	prefix := p.cache.opts.Name + "/"
	for _, n := range notes {
		conn := n.To
		if n.Kind == NoteRead || n.Kind == NoteEnd {
			conn = n.From
		}
		key, ok := strings.CutPrefix(conn, prefix)
		if !ok {
			continue
		}
		data, err := strconv.Unquote(n.Msg)
		if n.Msg == "" {
			data, err = "", nil
		}
		if err != nil {
			continue
		}
		l.learn(n.Kind, key, []byte(data))
	}
	l.chunks()
	if !p.cache.opts.Confirm {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*PeerError)
			if !ok {
				panic(r)
			}
			err = pe
		}
	}()
	for _, k := range slices.Sorted(maps.Keys(l.at)) {
		l.ends = append(l.ends, conversation{k, l.at[k]})
	}
	for _, e := range l.ends {
		p.cache.worldFor(e.at, e.key)
	}
	return nil
}

// A conversation is where one connection's learnt conversation ended (shared mode: the
// history's, key "").
type conversation struct {
	key string
	at  *node
}

type learner struct {
	t         *tree
	shared    bool
	datagrams bool
	// at is each connection's position (by key), or in shared mode the history's (key ""); a
	// connection whose notes contradict the cache is absent.
	at    map[string]*node
	reads []span         // the noted reads, for chunks
	ends  []conversation // connections closed, in order
}

// A span is n bytes the peer sent on conn, read from position from.
type span struct {
	from *node
	conn string
	n    int
}

// chunks marks where the peer's chunks end, once every read is in the tree (a later read may
// split a node an earlier one ran through): where a noted read ended, unless another noted read
// ran past that point, which proves that the first read's buffer was full, not the chunk over.
func (l *learner) chunks() {
	var ends []*node
	past := map[*node]bool{}
	for _, r := range l.reads {
		n := r.from
		for left := r.n; left > 0; {
			n = n.stream(evRead, r.conn, 0)
			left -= len(n.ev.data)
			if left > 0 {
				past[n] = true
			}
		}
		ends = append(ends, n)
	}
	for _, n := range ends {
		n.chunkEnd = !past[n]
	}
}

func (l *learner) learn(kind, key string, data []byte) {
	pos, conn := key, ""
	if l.shared {
		pos, conn = "", key
	}
	if kind == NoteOpen && !l.shared {
		l.at[key] = l.t.root
		return
	}
	n := l.at[pos]
	if n == nil || (!l.datagrams && len(data) == 0 && (kind == NoteWrite || kind == NoteRead)) {
		return // a stream's empty write or read is no event (Conn makes no note of one)
	}
	switch {
	case l.datagrams && (kind == NoteWrite || kind == NoteRead || kind == NoteEnd):
		n = l.datagram(n, kind, conn, data)
	case kind == NoteOpen:
		n = l.t.extend(n, event{evOpen, conn, nil}, false)
	case kind == NoteClose:
		if !l.shared {
			l.ends = append(l.ends, conversation{key, n})
			delete(l.at, pos)
			return
		}
		n = l.t.extend(n, event{evClose, conn, nil}, false)
	case kind == NoteWrite:
		at, rest, _ := l.t.matchWrite(n, conn, data)
		n = at
		if len(rest) > 0 {
			n = l.t.extend(at, event{evWrite, conn, rest}, false)
		}
	case kind == NoteRead:
		n = l.read(n, conn, data)
	case kind == NoteEnd:
		e := event{evEnd, conn, data}
		if k := n.child(e); k != nil {
			n = k
		} else if n.stream(evRead, conn, 0) == nil {
			n = l.t.extend(n, e, false)
		} else {
			n = nil // the cache holds more of the peer's bytes here
		}
	default:
		return
	}
	if n == nil {
		delete(l.at, pos)
		return
	}
	l.at[pos] = n
}

// datagram follows a datagram sent or received (or none received) from n, and records it where
// it is new; nil where the cache holds another answer.
func (l *learner) datagram(n *node, kind, conn string, d []byte) *node {
	e := event{evSend, conn, d}
	switch kind {
	case NoteRead:
		e.kind = evRecv
	case NoteEnd:
		e.kind = evEnd
	}
	if k := n.child(e); k != nil {
		return k
	}
	if e.kind != evSend {
		for _, k := range n.kids {
			if k.ev.conn == conn && (k.ev.kind == evRecv || k.ev.kind == evEnd) {
				return nil
			}
		}
	}
	return l.t.extend(n, e, false)
}

// read follows the peer's bytes d from n through the recorded reads, records what is new, and
// returns where d ends (nil where the cache holds other bytes).
func (l *learner) read(n *node, conn string, d []byte) *node {
	l.reads = append(l.reads, span{n, conn, len(d)})
	for len(d) > 0 {
		k := n.stream(evRead, conn, 0)
		if k == nil {
			if hasEnd(n, conn) {
				l.reads = l.reads[:len(l.reads)-1]
				return nil
			}
			n = l.t.extend(n, event{evRead, conn, d}, false)
			break
		}
		m := commonPrefix(k.ev.data, d)
		switch {
		case m < len(k.ev.data) && m < len(d):
			l.reads = l.reads[:len(l.reads)-1]
			return nil
		case m < len(k.ev.data):
			k = l.t.split(k, m)
		}
		n, d = k, d[m:]
	}
	return n
}

func hasEnd(n *node, conn string) bool {
	for _, k := range n.kids {
		if k.ev.kind == evEnd && k.ev.conn == conn {
			return true
		}
	}
	return false
}
