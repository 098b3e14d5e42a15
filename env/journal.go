package env

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The journal: the cache's tree written as it grows, so another process (a replay of a stored
// trace, the next check) starts with what this one learnt and needs the peer only beyond it. A
// replay whose path the journal covers never dials: the same bytes, in the same read chunks, as
// the check that made the trace. One line per change, in order:
//
//	x PARENT KIND CONN END DATA    a node: its parent's position (hex), w/r/e/o/c, the connection's
//	                               key as a Go string (without spaces),
//	                               1 where a physical read ended, the bytes as a Go string
//	s POSITION K                   the node ending at POSITION split after K bytes

// RecordTo makes the cache write every change to its tree to w from now on. Write errors stop
// the journal, not the check.
func (p *Peer) RecordTo(w io.Writer) { p.cache.t.journal = w }

// Load adds a journal's nodes to the cache and returns how many it added. Lines that name a
// position the cache does not have, or a node it already has (another process's journal of the
// same peer), are skipped; where two runs recorded different answers at one position, the first
// one loaded holds.
func (p *Peer) Load(r io.Reader) (int, error) {
	t := p.cache.t
	keep := t.journal
	t.journal = nil // what is loaded is already in the journal
	defer func() { t.journal = keep }()
	added := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		ok, err := t.replayLine(sc.Text())
		if err != nil {
			return added, fmt.Errorf("I/O cache journal line %d: %w (delete the journal to start afresh)", line, err)
		}
		if ok {
			added++
		}
	}
	return added, sc.Err()
}

func (t *tree) record(format string, args ...any) {
	if t.journal == nil {
		return
	}
	if _, err := fmt.Fprintf(t.journal, format, args...); err != nil {
		t.journal = nil
	}
}

func (t *tree) replayLine(l string) (bool, error) {
	f := strings.SplitN(l, " ", 6)
	switch {
	case len(f) == 6 && f[0] == "x" && len(f[2]) == 1:
		ph, err1 := strconv.ParseUint(f[1], 16, 64)
		conn, err2 := strconv.Unquote(f[3])
		data, err3 := strconv.Unquote(f[5])
		if err1 != nil || err2 != nil || err3 != nil {
			return false, fmt.Errorf("malformed node %q", l)
		}
		parent := t.nodes[ph]
		e := event{eventKind(f[2][0]), conn, []byte(data)}
		if parent == nil || t.nodes[endHash(parent, e)] != nil || (e.kind.streams() && len(e.data) == 0) {
			return false, nil
		}
		if e.kind.streams() && parent.stream(e.kind, conn, e.data[0]) != nil {
			return false, nil // another run's chunking or answer at this position
		}
		t.extend(parent, e, f[4] == "1")
		return true, nil
	case len(f) == 3 && f[0] == "s":
		h, err1 := strconv.ParseUint(f[1], 16, 64)
		k, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			return false, fmt.Errorf("malformed split %q", l)
		}
		n := t.nodes[h]
		if n == nil || k <= 0 || k >= len(n.ev.data) {
			return false, nil
		}
		if _, there := t.nodes[endHash(n.parent, event{n.ev.kind, n.ev.conn, n.ev.data[:k]})]; there {
			return false, nil
		}
		t.split(n, k)
		return true, nil
	}
	return false, fmt.Errorf("not a journal line: %q", l)
}
