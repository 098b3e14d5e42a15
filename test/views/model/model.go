// Package viewsmodel is the model the views' browser tests look at: nodes that exchange requests
// and acknowledgements over a lossy, duplicating network, with a bug (acknowledgements are
// counted, so a duplicated one counts twice) that the checker finds. Its heap has maps of
// pointers, aliases and, with pad=N, N extra objects per node, so the heap graph has something
// to draw and the sequence chart has arrows of every kind.
package viewsmodel

import (
	"fmt"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
)

// A Msg is a request or its acknowledgement.
type Msg struct {
	Kind string // req or ack
	Seq  int
}

// A Peer is what a node knows of another.
type Peer struct {
	ID   int
	Got  int // requests received from it
	Last int // the last sequence number seen from it
}

// A Buffer is padding: a chain of objects, so tests can make large heaps.
type Buffer struct {
	N    int
	Next *Buffer
}

// A Node is one process.
type Node struct {
	ID    int
	Seq   int
	Acks  int           // the bug: a count, so a duplicated ack counts twice
	Acked map[int]bool  // who acknowledged
	Peers map[int]*Peer // by id
	Best  *Peer         // aliases an entry of Peers once a request arrived
	Pool  *Buffer
}

// Names are the nodes' names, also the network's names for addresses.
var Names = []string{"A", "B", "C", "D", "E", "F", "G", "H"}

// New builds the model: n nodes; node A sends a request to all others, which acknowledge it.
func New(n, pad int, loss, dup bool) *cmc.Model {
	net := &env.Network[Msg]{Loss: loss, Dup: dup, Bound: 2 * n, Names: Names[:n]}
	nodes := make([]*Node, n)
	for i := range nodes {
		nd := &Node{ID: i, Acked: map[int]bool{}, Peers: map[int]*Peer{}}
		for j := range n {
			if j != i {
				nd.Peers[j] = &Peer{ID: j}
			}
		}
		for k := pad; k > 0; k-- {
			nd.Pool = &Buffer{N: k, Next: nd.Pool}
		}
		nodes[i] = nd
	}
	m := cmc.NewModel("ViewsDemo")
	m.Environment("net", net)
	for i, nd := range nodes {
		p := m.Process(Names[i], nd)
		if i == 0 {
			p.On("start", func() {
				nd.Seq++
				for j := 1; j < n; j++ {
					net.Send(0, j, Msg{Kind: "req", Seq: nd.Seq})
				}
			}, cmc.When(func() bool { return nd.Seq == 0 }))
		}
		p.On("recv", func() {
			pk, ok := net.Receive(i)
			if !ok {
				return
			}
			switch pk.Msg.Kind {
			case "req":
				peer := nd.Peers[pk.From]
				peer.Got++
				peer.Last = pk.Msg.Seq
				nd.Best = peer
				net.Send(i, pk.From, Msg{Kind: "ack", Seq: pk.Msg.Seq})
			case "ack":
				nd.Acks++
				nd.Acked[pk.From] = true
			}
		}, cmc.When(func() bool { return net.Waiting(i) }))
	}
	m.Invariant("acks counted once", func() error {
		for i, nd := range nodes {
			if nd.Acks != len(nd.Acked) {
				return fmt.Errorf("%s counted %d acks from %d nodes", Names[i], nd.Acks, len(nd.Acked))
			}
		}
		return nil
	})
	return m
}

func init() {
	cmc.Register("ViewsDemo", func(p *cmc.Params) *cmc.Model {
		n := p.Int("nodes", 3)
		pad := p.Int("pad", 0)
		loss, dup := p.Bool("loss", true), p.Bool("dup", true)
		if n < 2 || n > len(Names) {
			p.Fail("parameter nodes=%d: want 2 to %d", n, len(Names))
		}
		if pad < 0 || pad > 10000 {
			p.Fail("parameter pad=%d: want 0 to 10000", pad)
		}
		return New(n, pad, loss, dup)
	})
}
