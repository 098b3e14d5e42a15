package redis

import (
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
	"github.com/cmc-go/cmc/env/peer"
)

// The model: a web server's handler counts Hits page hits with a Counter; any read of a reply
// may come too late (at most Timeouts times in a run), which the checker chooses. Then an audit
// reads the count on a connection of its own: it must be Hits. The Redis server is real.
func init() {
	cmc.Register("RedisCounter", func(p *cmc.Params) *cmc.Model {
		o := Options{
			Fixed:    p.Bool("fixed", false),
			Hits:     p.Int("hits", 2),
			Timeouts: p.Int("timeouts", 1),
			Fake:     p.Bool("fake", false),
			Confirm:  p.Bool("confirm", false),
		}
		m, err := New(o)
		if err != nil {
			p.Fail("%v", err)
		}
		return m
	})
}

// Options are the model's parameters.
type Options struct {
	Fixed    bool // the corrected client
	Hits     int  // page hits to count
	Timeouts int  // late replies the checker may choose, in all
	Fake     bool // talk to an in-process fake (fake.go) instead of redis-server
	// Confirm makes a replay of a stored trace first replay the trace's conversation on the
	// server, to confirm that it still answers with the same bytes.
	Confirm bool
	// Dialer, when set, reaches the server instead (a test's: one that fails proves a replay
	// needed no server).
	Dialer env.Dialer
}

// web is the checked process: the page handler's client and what it has done.
type web struct {
	Counter  Counter
	Done     int // hits counted
	Seen     []int64
	Late     int // late replies left to choose
	Audited  bool
	AuditErr string
}

// New builds the model. Unless o.Fake, redis-server starts (once per process) when the cache first
// needs it: a replay of a stored trace answers from the trace and never starts it.
func New(o Options) (*cmc.Model, error) {
	var d env.Dialer = lazyServer{}
	switch {
	case o.Dialer != nil:
		d = o.Dialer
	case o.Fake:
		d = newFake()
	}
	m := cmc.NewModel("RedisCounter")
	db := env.NewPeer(d, env.PeerOptions{Name: "redis", Shared: true, Confirm: o.Confirm})
	w := &web{Counter: Counter{Key: "hits", Retries: 1, Fixed: o.Fixed}, Late: o.Timeouts}
	m.Environment("redis", db)
	conns := lateConns{db, &w.Late}
	m.Process("web", w).
		On("hit", func() {
			n, err := w.Counter.Hit(conns, w.Done+1)
			if err != nil {
				// The page shows an error; the hit may or may not have counted, and the user
				// reloads: the same request again.
				return
			}
			w.Seen = append(w.Seen, n)
			w.Done++
		}, cmc.When(func() bool { return w.Done < o.Hits })).
		On("audit", func() {
			s := Session{RW: db.Dial("audit")}
			r, err := s.Do("GET", "hits")
			w.Audited = true
			if err != nil {
				w.AuditErr = err.Error()
				return
			}
			cmc.Assert(r.Kind == '$' && r.Str == strconv.Itoa(o.Hits),
				"after %d hits the counter is %v: a retry counted a hit twice (the handler saw %v)", o.Hits, r, w.Seen)
		}, cmc.When(func() bool { return w.Done == o.Hits && !w.Audited }))
	return m, nil
}

// lateConns gives the Counter the Peer's connections, whose reads the checker may make late.
type lateConns struct {
	db   *env.Peer
	late *int
}

func (c lateConns) Dial() { c.db.Dial("web") }

func (c lateConns) Conn() io.ReadWriteCloser { return lateConn{c.db.Conn("web"), c.late} }

type lateConn struct {
	env.Conn
	late *int
}

// errLate is a read whose reply did not come before the client's deadline.
var errLate = &timeout{}

type timeout struct{}

func (*timeout) Error() string { return "i/o timeout (the checker chose: the reply is late)" }
func (*timeout) Timeout() bool { return true }

func lateLabel(late bool) string {
	if late {
		return "the reply is late"
	}
	return "the reply is in time"
}

func (c lateConn) Read(b []byte) (int, error) {
	if *c.late > 0 && cmc.ChooseOf([]bool{false, true}, lateLabel) {
		*c.late--
		return 0, errLate
	}
	return c.Conn.Read(b)
}

// RedisServer is how the example starts redis-server: on a free loopback port, without
// persistence, emptied (FLUSHALL) before each replay.
var RedisServer = peer.Config{
	Command: []string{"redis-server", "--port", "{port}", "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--protected-mode", "no"},
	Install: "apt-get install redis-server",
	Reset: func(s *peer.Server) error {
		rw, err := s.Dialer().Dial()
		if err != nil {
			return err
		}
		defer rw.Close()
		r, err := (&Session{RW: rw}).Do("FLUSHALL")
		if err == nil && r.Kind != '+' {
			err = errors.New("FLUSHALL answered " + r.String())
		}
		return err
	},
}

// lazyServer reaches the shared redis-server, starting it on first use.
type lazyServer struct{}

func (lazyServer) Dial() (io.ReadWriteCloser, error) {
	s, err := server()
	if err != nil {
		return nil, err
	}
	return s.Dialer().Dial()
}

func (lazyServer) Reset() error {
	s, err := server()
	if err != nil {
		return err
	}
	return s.Dialer().(env.Resetter).Reset()
}

var (
	serverOnce sync.Once
	theServer  *peer.Server
	serverErr  error
)

// server starts redis-server the first time a model needs it; every instance in this process
// shares it (the search keeps to one instance at a time, and each replay starts with FLUSHALL).
// It dies with the process.
func server() (*peer.Server, error) {
	serverOnce.Do(func() { theServer, serverErr = peer.Start(RedisServer) })
	return theServer, serverErr
}
