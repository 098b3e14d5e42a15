package peer

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/env"
	"github.com/cmc-go/cmc/internal/transition"
)

// TestStartFailsClearly: a peer that cannot start says why and how to fix it.
func TestStartFailsClearly(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Command: []string{"cmc-no-such-server", "--port", "{port}"}, Install: "apt-get install cmc-no-such-server"},
			`start peer cmc-no-such-server --port `},
		{Config{Command: []string{"sh", "-c", "echo bad flag >&2; exit 3"}},
			"peer sh exited before accepting connections (exit status 3): bad flag"},
		{Config{}, "give a Command to start, or the Addr of a running peer"},
	} {
		_, err := Start(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Start(%v): got %v, want an error containing %q", c.cfg.Command, err, c.want)
		}
		if c.cfg.Install != "" && (err == nil || !strings.HasSuffix(err.Error(), "(install it: "+c.cfg.Install+")")) {
			t.Errorf("Start(%v): got %v, want the install hint", c.cfg.Command, err)
		}
	}
}

// echo serves loopback connections that echo what they read; it stops with the test.
func echo(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return l.Addr().String()
}

// TestThroughTheCache: a Peer over a real TCP peer found at an address, used through NetConn as a
// client library would; the same conversation again is answered by the cache, with no new
// connection.
func TestThroughTheCache(t *testing.T) {
	s, err := Start(Config{Addr: echo(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer transition.Install(quiet{})()
	p := env.NewPeer(s.Dialer(), env.PeerOptions{Name: "echo"})
	c := NetConn(p.Dial("c"))
	start := slices(p.Conns)
	for range 2 {
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 5)
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, []byte("hello")) {
			t.Fatalf("read %q, %v", got, err)
		}
		p.Conns = slices(start) // roll back
	}
	if st := p.Stats(); st.Dials != 1 || st.ReadCache != 5 || st.WriteCache != 5 {
		t.Errorf("the second conversation was not answered from the cache: %s", st)
	}
	p.Shutdown()
}

func slices(c []env.ConnState) []env.ConnState { return append([]env.ConnState(nil), c...) }

type quiet struct{}

func (quiet) Choose(n int, pc uintptr) int { return 0 }
func (quiet) Sites() bool                  { return false }
func (quiet) Noting() bool                 { return false }
func (quiet) Label(string)                 {}
func (quiet) Note(transition.Note)         {}
