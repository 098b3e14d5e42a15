package aodv

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// testNet is an in-memory network of routers for tests: a FIFO queue of packets in the air,
// a symmetric topology that decides who hears a broadcast and whether a unicast finds its
// neighbour, and a log of everything sent. Every packet crosses the wire format, and after
// every delivery every router's table is checked and next-hop loops are recorded.
type testNet struct {
	t      *testing.T
	nodes  []*Router
	adj    [][]bool
	queue  []packet
	log    []sent
	now    Time
	loops  []string // loops seen after deliveries, in order
	order  bool     // also check the sequence-number order along next hops
	allocs int      // fail this many allocations from now on
	downs  int      // fail this many unicasts from now on, as if the link were down
}

type packet struct {
	from, to NodeID
	data     []byte
	msg      Message // decoded copy, for matching; delivery decodes data
}

type sent struct {
	from, to NodeID // to is meaningless for a broadcast
	bcast    bool
	msg      Message
}

func (s sent) String() string {
	if s.bcast {
		return fmt.Sprintf("%v -> *: %v", s.from, s.msg)
	}
	return fmt.Sprintf("%v -> %v: %v", s.from, s.to, s.msg)
}

// port is one node's view of the test network: its Link, Clock and Alloc.
type port struct {
	n  *testNet
	id NodeID
}

func (p port) Send(to NodeID, m Message) error {
	if int(to) >= len(p.n.nodes) || !p.n.adj[p.id][to] || p.n.downs > 0 {
		p.n.downs = max(p.n.downs-1, 0)
		return fmt.Errorf("send to %v: %w", to, ErrLinkDown)
	}
	p.n.log = append(p.n.log, sent{from: p.id, to: to, msg: m})
	p.n.enqueue(p.id, to, m)
	return nil
}

func (p port) Broadcast(m Message) error {
	p.n.log = append(p.n.log, sent{from: p.id, bcast: true, msg: m})
	for to := range p.n.nodes {
		if p.n.adj[p.id][to] {
			p.n.enqueue(p.id, NodeID(to), m)
		}
	}
	return nil
}

func (p port) Now() Time { return p.n.now }

func (p port) NewMessage() (*Message, error) {
	if p.n.allocs > 0 {
		p.n.allocs--
		return nil, errors.New("out of buffers")
	}
	return new(Message), nil
}

// newNet builds n routers 0..n-1 joined by the given edges.
func newNet(t *testing.T, cfg Config, n int, edges ...[2]NodeID) *testNet {
	t.Helper()
	net := &testNet{t: t, adj: make([][]bool, n)}
	for i := range n {
		net.adj[i] = make([]bool, n)
		p := port{net, NodeID(i)}
		net.nodes = append(net.nodes, New(NodeID(i), cfg, p, p, p))
	}
	for _, e := range edges {
		net.join(e[0], e[1])
	}
	return net
}

// newLine builds 0 - 1 - ... - n-1.
func newLine(t *testing.T, cfg Config, n int) *testNet {
	var edges [][2]NodeID
	for i := 1; i < n; i++ {
		edges = append(edges, [2]NodeID{NodeID(i - 1), NodeID(i)})
	}
	return newNet(t, cfg, n, edges...)
}

func (n *testNet) join(a, b NodeID) { n.adj[a][b], n.adj[b][a] = true, true }
func (n *testNet) cut(a, b NodeID)  { n.adj[a][b], n.adj[b][a] = false, false }

func (n *testNet) enqueue(from, to NodeID, m Message) {
	n.t.Helper()
	data, err := Marshal(m)
	if err != nil {
		n.t.Fatalf("node %v sent a message the wire refuses: %v", from, err)
	}
	n.queue = append(n.queue, packet{from: from, to: to, data: data, msg: m})
}

// deliver hands one packet to its receiver, whatever the topology is now: it was in the air.
func (n *testNet) deliver(p packet) {
	n.t.Helper()
	m, err := Unmarshal(p.data)
	if err != nil {
		n.t.Fatalf("deliver %v -> %v: %v", p.from, p.to, err)
	}
	if err := n.nodes[p.to].Receive(p.from, m); err != nil {
		n.t.Fatalf("deliver %v -> %v: %v", p.from, p.to, err)
	}
	n.checkAll(fmt.Sprintf("after %v -> %v: %v", p.from, p.to, m))
}

// run delivers packets in FIFO order until none are left.
func (n *testNet) run() {
	n.t.Helper()
	for steps := 0; len(n.queue) > 0; steps++ {
		if steps > 10000 {
			n.t.Fatalf("network did not quiesce; queue %v", n.queue)
		}
		p := n.queue[0]
		n.queue = n.queue[1:]
		n.deliver(p)
	}
}

// take removes and returns the first packet in the air that matches.
func (n *testNet) take(match func(packet) bool) packet {
	n.t.Helper()
	for i, p := range n.queue {
		if match(p) {
			n.queue = slices.Delete(n.queue, i, i+1)
			return p
		}
	}
	n.t.Fatalf("no packet in the air matches; queue %v", n.queue)
	return packet{}
}

// event runs one event on the network (a method call on a router), then checks all tables.
func (n *testNet) event(what string, f func()) {
	n.t.Helper()
	f()
	n.checkAll(what)
}

func (n *testNet) checkAll(when string) {
	n.t.Helper()
	for _, r := range n.nodes {
		if err := r.CheckTable(); err != nil {
			n.t.Fatalf("%s: %v", when, err)
		}
	}
	for d := range n.nodes {
		if loop := findLoop(n.nodes, NodeID(d)); loop != nil {
			n.loops = append(n.loops, fmt.Sprintf("%s: loop to %v through %v", when, d, loop))
		}
		if n.order {
			if err := checkOrder(n.nodes, NodeID(d)); err != nil {
				n.t.Fatalf("%s: %v", when, err)
			}
		}
	}
}

// findLoop returns a cycle of valid next hops towards dest, or nil: the thesis's main invariant.
func findLoop(nodes []*Router, dest NodeID) []NodeID {
	for start := range nodes {
		var path []NodeID
		for cur := NodeID(start); cur != dest; {
			if i := slices.Index(path, cur); i >= 0 {
				return path[i:]
			}
			path = append(path, cur)
			next, ok := nodes[cur].NextHop(dest)
			if !ok {
				break
			}
			cur = next
		}
	}
	return nil
}

// checkOrder checks the order AODV's loop freedom rests on (thesis section 4.2): if a routes to
// dest through b and both know valid sequence numbers on valid routes, b is newer, or as new and
// closer.
func checkOrder(nodes []*Router, dest NodeID) error {
	for _, a := range nodes {
		ra, ok := a.Route(dest)
		if !ok || !ra.Valid || !ra.ValidSeq || ra.NextHop == dest {
			continue
		}
		rb, ok := nodes[ra.NextHop].Route(dest)
		if !ok || !rb.Valid || !rb.ValidSeq {
			continue
		}
		if !(SeqNewer(rb.Seq, ra.Seq) || rb.Seq == ra.Seq && ra.Hops > rb.Hops) {
			return fmt.Errorf("node %v (%v) routes through node %v (%v), which is not fresher", a.ID(), ra, ra.NextHop, rb)
		}
	}
	return nil
}

// table renders a router's routing table, one route a line.
func table(r *Router) string {
	var b strings.Builder
	for _, rt := range r.Routes() {
		fmt.Fprintln(&b, rt)
	}
	return b.String()
}

// wantTable fails the test unless r's table renders as the lines given.
func wantTable(t *testing.T, r *Router, lines ...string) {
	t.Helper()
	want := strings.Join(lines, "\n")
	if len(lines) > 0 {
		want += "\n"
	}
	if got := table(r); got != want {
		t.Errorf("node %v table:\n%s\nwant:\n%s", r.ID(), got, want)
	}
}

// sends returns the log entries that match, rendered.
func (n *testNet) sends(match func(sent) bool) []string {
	var out []string
	for _, s := range n.log {
		if match == nil || match(s) {
			out = append(out, s.String())
		}
	}
	return out
}

func ofType(t MsgType) func(sent) bool { return func(s sent) bool { return s.msg.Type == t } }
