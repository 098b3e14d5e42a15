package peer

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/cmc-go/cmc/env"
	"github.com/cmc-go/cmc/internal/transition"
)

// BenchmarkStream is the seed's table 1: a stream in linear mode (every byte beyond the cache,
// so each write reaches the peer and each read is recorded) against a plain net.Conn, both to a
// loopback echo server, with 100 B, 1 KB and 10 KB per write and read. One op moves total bytes
// each way on a fresh connection (and, for the cache, a fresh Peer: what it records stays bounded).
//
//	go test ./env/peer -run '^$' -bench Stream -benchtime 20x
var benchTimeout = -1 * time.Second

func BenchmarkStream(b *testing.B) {
	const total = 1 << 20
	addr := echo(b)
	defer transition.Install(quiet{})()
	for _, size := range []int{100, 1000, 10000} {
		msg := make([]byte, size)
		back := make([]byte, size)
		rounds := total / size
		b.Run(fmt.Sprintf("plain/%d", size), func(b *testing.B) {
			b.SetBytes(int64(rounds * size))
			for range b.N {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					b.Fatal(err)
				}
				for range rounds {
					c.Write(msg)
					if _, err := io.ReadFull(c, back); err != nil {
						b.Fatal(err)
					}
				}
				c.Close()
			}
		})
		b.Run(fmt.Sprintf("cached/%d", size), func(b *testing.B) {
			s, err := Start(Config{Addr: addr, ReadTimeout: benchTimeout})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(rounds * size))
			for range b.N {
				p := env.NewPeer(s.Dialer(), env.PeerOptions{})
				c := p.Dial("c")
				for range rounds {
					c.Write(msg)
					if _, err := io.ReadFull(c, back); err != nil {
						b.Fatal(err)
					}
				}
				p.Shutdown()
			}
		})
	}
}
