package env

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cmc-go/cmc/internal/transition"
)

// TestIOCache runs the cache's transcripts in testdata/iocache/ against the scripted peer. The
// checker's milestones are the Peer's state: `mark NAME` keeps a copy of it and `rollback NAME`
// restores it, as the engine does between transitions. Commands:
//
//	peer [shared] [reset] [greet] [datagrams] [max-open=N]   a fresh Peer on a fresh scripted peer
//	dial KEY                 open a connection named KEY
//	write KEY TEXT           TEXT is a Go string literal's body ("INCR a\n")
//	read KEY [N]             read into an N-byte buffer (default 64)
//	close KEY
//	mark NAME / rollback NAME
//	jitter                   from now on the peer answers ECHO differently on each dial
//	conversation KEY         the events from the root to the connection's position (w written,
//	                         r read, e ended), as the tree holds them
//	stats
//	relearn [confirm]        a fresh Peer (another process replaying a stored trace) with the
//	                         same state, whose peer is gone, learns the notes the operations
//	                         made since the last peer command (Peer.Learn); with confirm, its
//	                         peer is a fresh scripted one (jittering if the last one did), which
//	                         it confirms the notes with
//
// Each command prints its result, then what the physical peer saw meanwhile ("peer: ..."). A
// PeerError (the operations panic with it) prints as "peer error: ...".
// Regenerate with: go test ./env -run TestIOCache -rewrite
func TestIOCache(t *testing.T) {
	datadriven.Walk(t, "testdata/iocache", func(t *testing.T, path string) {
		notes := &recorder{}
		defer transition.Install(notes)() // the operations note what they do, as in a handler
		var (
			s     *scripted
			p     *Peer
			opts  PeerOptions
			marks = map[string]Peer{}
		)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) (out string) {
			if d.Cmd == "peer" {
				s = newScripted()
				var dialer Dialer = s
				o := PeerOptions{Name: "db"}
				for _, a := range d.CmdArgs {
					switch a.Key {
					case "shared":
						o.Shared = true
					case "reset":
						dialer = resettable{s}
					case "greet":
						s.greet = true
					case "datagrams":
						o.Datagrams = true
					case "max-open":
						o.MaxOpen, _ = strconv.Atoi(a.Vals[0])
					}
				}
				p, opts = NewPeer(dialer, o), o
				clear(marks)
				notes.notes = nil
				return "ok\n"
			}
			if d.Cmd == "relearn" {
				// Another process: a fresh Peer holding the same state, whose peer is gone, or
				// with confirm a fresh one.
				var dialer Dialer = gone{}
				o := opts
				if d.HasArg("confirm") {
					jitter := s.jitter
					s = newScripted()
					s.jitter, o.Confirm, dialer = jitter, true, s
					if o.Shared {
						dialer = resettable{s}
					}
				}
				q := NewPeer(dialer, o)
				q.Conns, q.At = slices.Clone(p.Conns), p.At
				err := q.Learn(notes.notes)
				p = q
				return fmt.Sprintf("learnt %d nodes from %d notes, err %v\n", len(q.cache.t.nodes)-1, len(notes.notes), err) + physical(s)
			}
			defer func() {
				if r := recover(); r != nil {
					pe, ok := r.(*PeerError)
					if !ok {
						panic(r)
					}
					out = "peer error: " + pe.Msg + "\n" + physical(s)
				}
			}()
			res := run(t, d, s, p, marks)
			return res + "\n" + physical(s)
		})
	})
}

func run(t *testing.T, d *datadriven.TestData, s *scripted, p *Peer, marks map[string]Peer) string {
	arg := func(i int) string {
		if len(d.CmdArgs) <= i {
			t.Fatalf("%s: missing argument %d", d.Cmd, i+1)
		}
		return d.CmdArgs[i].Key
	}
	id := func() string { return arg(0) }
	switch d.Cmd {
	case "dial":
		return "conn " + p.Dial(arg(0)).Key()
	case "write":
		lit := strings.Join(keys(d.CmdArgs[1:]), " ")
		b, err := strconv.Unquote(`"` + lit + `"`)
		if err != nil {
			t.Fatalf("write: %v", err)
		}
		n, err := p.Conn(id()).Write([]byte(b))
		return result(n, err, "")
	case "read":
		size := 64
		if len(d.CmdArgs) > 1 {
			size, _ = strconv.Atoi(d.CmdArgs[1].Key)
		}
		buf := make([]byte, size)
		n, err := p.Conn(id()).Read(buf)
		return result(n, err, string(buf[:n]))
	case "close":
		if err := p.Conn(id()).Close(); err != nil {
			return "error: " + err.Error()
		}
		return "closed"
	case "mark":
		marks[arg(0)] = Peer{Conns: slices.Clone(p.Conns), At: p.At}
		return "marked"
	case "rollback":
		m := marks[arg(0)]
		p.Conns, p.At = slices.Clone(m.Conns), m.At
		return "rolled back"
	case "jitter":
		s.jitter = true
		return "ok"
	case "conversation":
		// The path from the root to the connection's position, as the tree holds it.
		st := p.conn(id())
		if st == nil {
			return "not open"
		}
		pos, conn := st.At, ""
		if p.cache.opts.Shared {
			pos, conn = p.At, id()
		}
		n, err := p.cache.t.at(pos)
		if err != nil {
			return err.Error()
		}
		var b strings.Builder
		for _, e := range n.path() {
			if e.conn == conn && e.kind != evOpen {
				fmt.Fprintf(&b, "%c %q\n", e.kind, e.data)
			}
		}
		return strings.TrimSuffix(b.String(), "\n")
	case "stats":
		return p.Stats().String()
	}
	t.Fatalf("unknown command %s", d.Cmd)
	return ""
}

func keys(args []datadriven.CmdArg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.Key
	}
	return out
}

func result(n int, err error, data string) string {
	if err != nil {
		return fmt.Sprintf("%d error: %v", n, err)
	}
	if data != "" {
		return strconv.Quote(data)
	}
	return strconv.Itoa(n)
}

// physical prints and forgets what the scripted peer saw.
func physical(s *scripted) string {
	var b strings.Builder
	for _, l := range s.log {
		b.WriteString("peer: " + l + "\n")
	}
	s.log = nil
	return b.String()
}

// recorder is a transition context that keeps the notes, as the trace of a violation does, so
// the Peer can run outside a check.
type recorder struct{ notes []transition.Note }

func (*recorder) Choose(n int, pc uintptr) int { return 0 }
func (*recorder) Sites() bool                  { return false }
func (*recorder) Noting() bool                 { return true }
func (*recorder) Label(string)                 {}
func (r *recorder) Note(n transition.Note)     { r.notes = append(r.notes, n) }

// gone is a peer that cannot be reached.
type gone struct{}

func (gone) Dial() (io.ReadWriteCloser, error) { return nil, errors.New("connection refused") }

// quiet is a transition context that records no notes, as a search runs handlers.
type quiet struct{}

func (quiet) Choose(n int, pc uintptr) int { return 0 }
func (quiet) Sites() bool                  { return false }
func (quiet) Noting() bool                 { return false }
func (quiet) Label(string)                 {}
func (quiet) Note(transition.Note)         {}
