package etcdraft

import (
	"fmt"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
)

// Bounds are the environment's budget: how many election timeouts may fire, how many values
// clients propose, how many crashes happen, and how many messages may be in flight.
type Bounds struct {
	Elections, Proposals, Crashes, InFlight int
	Loss, Dup                               bool
	// Heartbeats lets a leader take heartbeat timeouts (off by default: a leader that commits
	// sends the commit index with its next append anyway, and heartbeats multiply the states).
	Heartbeats bool
}

// Budget counts what the environment has spent of its Bounds.
type Budget struct {
	Elections, Proposals, Crashes int
}

// History is what the invariants need of the past (ghost state, not the nodes'): which nodes
// led in which term.
type History struct {
	// Leaders[t] are the nodes that were leader in term t. A slice, not a map: most transitions
	// leave the history as it was, and a capture finds so by comparing its memory, without
	// encoding it again; a map's entries would each be looked up again (canon.Footprint).
	Leaders [][]uint64
}

// led records that node id led in term t.
func (h *History) led(t, id uint64) {
	for uint64(len(h.Leaders)) <= t {
		h.Leaders = append(h.Leaders, nil)
	}
	if !contains(h.Leaders[t], id) {
		h.Leaders[t] = append(h.Leaders[t], id)
	}
}

func init() {
	cmc.Register("EtcdRaft", func(p *cmc.Params) *cmc.Model { return build(p, "EtcdRaft", false) })
	cmc.Register("EtcdRaftSendBeforePersist", func(p *cmc.Params) *cmc.Model { return build(p, "EtcdRaftSendBeforePersist", true) })
}

func build(p *cmc.Params, name string, sendFirst bool) *cmc.Model {
	b := Bounds{
		Elections: p.Int("elections", 2), Proposals: p.Int("proposals", 1), Crashes: p.Int("crashes", 1),
		InFlight: p.Int("inflight", 2), Loss: p.Bool("loss", false), Dup: p.Bool("dup", false),
		Heartbeats: p.Bool("heartbeats", false),
	}
	return New(name, b, sendFirst)
}

// Defaults are the bounds the registered models take unless -set says otherwise: two election
// timeouts, one proposal, one crash, two messages in flight. EtcdRaft is complete within them
// in about a second here; see docs/etcdraft.md for larger bounds.
var Defaults = Bounds{Elections: 2, Proposals: 1, Crashes: 1, InFlight: 2}

// New builds a three-node cluster; sendFirst selects the Ready loop that sends before persisting.
func New(name string, b Bounds, sendFirst bool) *cmc.Model {
	voters := []uint64{1, 2, 3}
	net := &env.Network[Wire]{Bound: b.InFlight, Loss: b.Loss, Dup: b.Dup, Names: []string{"n1", "n2", "n3"}}
	budget, hist := &Budget{}, &History{}
	nodes := make([]*Node, len(voters))
	for i, id := range voters {
		nodes[i] = &Node{ID: id, Storage: newStorage(voters)}
		nodes[i].start()
	}

	m := cmc.NewModel(name)
	// raft draws each randomised election timeout from crypto/rand. Elections here are events,
	// not ticks, so the value is never read: it is not state.
	m.Omit("go.etcd.io/raft/v3.raft", "randomizedElectionTimeout")
	// MemoryStorage counts the calls made to it (statistics for tests): reading the log, as the
	// invariants do, would otherwise change the state.
	m.Omit("go.etcd.io/raft/v3.MemoryStorage", "callStats")
	m.Environment("net", net)
	m.Environment("budget", budget)
	m.Environment("history", hist)

	for i, n := range nodes {
		send := func(msg *pb.Message) { net.Send(i, int(msg.GetTo())-1, marshal(msg)) }
		ready := func() {
			if sendFirst {
				n.readySendBeforePersist(send)
			} else {
				n.readyLoop(send)
			}
			if n.Leader() {
				hist.led(n.Term(), n.ID)
			}
		}
		free := func() bool { return n.Up() && n.Unpersisted == nil }
		proc := m.Process(fmt.Sprintf("n%d", n.ID), n)
		proc.On("timeout", func() {
			budget.Elections++
			if err := n.RN.Campaign(); err != nil {
				panic(err)
			}
			ready()
		}, cmc.When(func() bool { return free() && !n.Leader() && budget.Elections < b.Elections }))
		proc.On("heartbeat", func() {
			n.RN.Tick() // HeartbeatTick is 1: one tick sends heartbeats
			ready()
		}, cmc.When(func() bool { return b.Heartbeats && free() && n.Leader() }))
		proc.On("propose", func() {
			budget.Proposals++
			if err := n.RN.Propose(fmt.Appendf(nil, "v%d", budget.Proposals)); err != nil {
				panic(err)
			}
			ready()
		}, cmc.When(func() bool { return free() && n.Leader() && budget.Proposals < b.Proposals }))
		proc.On("recv", func() {
			if p, ok := net.Receive(i); ok {
				if err := n.RN.Step(unmarshal(p.Msg)); err != nil && err != raft.ErrStepPeerNotFound {
					panic(err)
				}
			}
			ready()
		}, cmc.When(func() bool { return free() && net.Waiting(i) }))
		proc.On("crash", func() {
			budget.Crashes++
			n.RN, n.Unpersisted = nil, nil
		}, cmc.When(func() bool { return n.Up() && budget.Crashes < b.Crashes }))
		proc.On("restart", func() {
			n.start()
			ready()
		}, cmc.When(func() bool { return !n.Up() }))
		if sendFirst {
			proc.On("persist", func() { n.persistLater(send) }, cmc.When(func() bool { return n.Up() && n.Unpersisted != nil }))
		}
	}
	invariants(m, nodes, hist)
	return m
}

func contains(ids []uint64, id uint64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
