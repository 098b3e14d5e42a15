package etcdraft

import (
	"slices"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// A Node is one raft node as its application runs it.
type Node struct {
	ID uint64
	// Storage is the node's durable storage: it survives a crash.
	Storage *raft.MemoryStorage
	// Applied is the application's state machine, persisted with the entries it applied: the
	// committed entries, in log order, with their index and term.
	Applied []Entry
	// RN is the volatile raft state: nil while the node is down.
	RN *raft.RawNode
	// Unpersisted is what a Ready still has to write to storage, in the SendBeforePersist loop,
	// between sending its messages and persisting (nil otherwise). A crash loses it.
	Unpersisted *Batch
}

// An Entry is one applied log entry.
type Entry struct {
	Index, Term uint64
	Data        string
}

// A Batch is the part of a Ready that goes to storage.
type Batch struct {
	HardState *pb.HardState
	Entries   []*pb.Entry
}

// silent is raft's logger here: the checker runs millions of steps.
type silent struct{}

func (silent) Debug(...any)              {}
func (silent) Debugf(string, ...any)     {}
func (silent) Error(...any)              {}
func (silent) Errorf(string, ...any)     {}
func (silent) Info(...any)               {}
func (silent) Infof(string, ...any)      {}
func (silent) Warning(...any)            {}
func (silent) Warningf(string, ...any)   {}
func (silent) Fatal(v ...any)            { panic(v) }
func (silent) Fatalf(f string, v ...any) { panic(f) }
func (silent) Panic(v ...any)            { panic(v) }
func (silent) Panicf(f string, v ...any) { panic(f) }

// newStorage is the durable storage of a fresh member of a cluster of the given voters.
func newStorage(voters []uint64) *raft.MemoryStorage {
	ms := raft.NewMemoryStorage()
	err := ms.ApplySnapshot(&pb.Snapshot{Metadata: &pb.SnapshotMetadata{
		ConfState: &pb.ConfState{Voters: voters}, Index: new(uint64(1)), Term: new(uint64(1)),
	}})
	if err != nil {
		panic(err)
	}
	return ms
}

// start makes the node's RawNode from its storage, as an application does at boot and after a
// crash: raft reads its HardState and log from storage, and resumes applying after Applied.
func (n *Node) start() {
	applied := uint64(1) // the bootstrap snapshot
	if len(n.Applied) > 0 {
		applied = n.Applied[len(n.Applied)-1].Index
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID: n.ID, ElectionTick: 2, HeartbeatTick: 1, Storage: n.Storage, Applied: applied,
		MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 16, Logger: silent{},
	})
	if err != nil {
		panic(err)
	}
	n.RN = rn
}

// Up reports whether the node is running.
func (n *Node) Up() bool { return n.RN != nil }

// Leader reports whether the node is up and believes it leads.
func (n *Node) Leader() bool { return n.Up() && n.RN.BasicStatus().RaftState == raft.StateLeader }

// Term is the node's current term as raft holds it (its persisted term while down).
func (n *Node) Term() uint64 {
	if n.Up() {
		return n.RN.BasicStatus().GetTerm()
	}
	hs, _, _ := n.Storage.InitialState()
	return hs.GetTerm()
}

// readyLoop is the Ready loop as the raft README writes it: persist the HardState and entries,
// then send the messages, then apply the committed entries, then Advance; until raft has nothing
// more to do.
func (n *Node) readyLoop(send func(*pb.Message)) {
	for n.RN.HasReady() {
		rd := n.RN.Ready()
		n.persist(rd.HardState, rd.Entries)
		for _, m := range rd.Messages {
			send(m)
		}
		n.apply(rd.CommittedEntries)
		n.RN.Advance(rd)
	}
}

// readySendBeforePersist is the mistake: the messages of a Ready (a vote, an append
// acknowledgement) go out first, and the HardState and entries are written by a later step
// (persistLater). The node takes no other step in between, but it may crash.
func (n *Node) readySendBeforePersist(send func(*pb.Message)) {
	if n.Unpersisted != nil || !n.RN.HasReady() {
		return
	}
	rd := n.RN.Ready()
	for _, m := range rd.Messages {
		send(m)
	}
	n.apply(rd.CommittedEntries)
	b := &Batch{}
	if !raft.IsEmptyHardState(rd.HardState) {
		b.HardState = proto.Clone(rd.HardState).(*pb.HardState)
	}
	for _, e := range rd.Entries {
		b.Entries = append(b.Entries, proto.Clone(e).(*pb.Entry))
	}
	n.Unpersisted = b
}

// persistLater writes what readySendBeforePersist left, and tells raft.
func (n *Node) persistLater(send func(*pb.Message)) {
	b := n.Unpersisted
	n.Unpersisted = nil
	n.persist(b.HardState, b.Entries)
	n.RN.Advance(raft.Ready{})
	n.readySendBeforePersist(send)
}

func (n *Node) persist(hs *pb.HardState, ents []*pb.Entry) {
	if len(ents) > 0 {
		if err := n.Storage.Append(ents); err != nil {
			panic(err)
		}
	}
	if hs != nil && !raft.IsEmptyHardState(hs) {
		if err := n.Storage.SetHardState(hs); err != nil {
			panic(err)
		}
	}
}

func (n *Node) apply(ents []*pb.Entry) {
	for _, e := range ents {
		if e.GetType() == pb.EntryNormal && len(e.GetData()) > 0 {
			n.Applied = append(n.Applied, Entry{Index: e.GetIndex(), Term: e.GetTerm(), Data: string(e.GetData())})
		}
	}
}

// Log returns the node's durable log (and what it has yet to persist), from index first.
func (n *Node) Log() []Entry {
	first, _ := n.Storage.FirstIndex()
	last, _ := n.Storage.LastIndex()
	var out []Entry
	if last >= first {
		ents, err := n.Storage.Entries(first, last+1, 1<<30)
		if err != nil {
			panic(err)
		}
		for _, e := range ents {
			out = append(out, Entry{Index: e.GetIndex(), Term: e.GetTerm(), Data: string(e.GetData())})
		}
	}
	if n.Unpersisted != nil {
		for _, e := range n.Unpersisted.Entries {
			i := slices.IndexFunc(out, func(x Entry) bool { return x.Index >= e.GetIndex() })
			if i >= 0 {
				out = out[:i]
			}
			out = append(out, Entry{Index: e.GetIndex(), Term: e.GetTerm(), Data: string(e.GetData())})
		}
	}
	return out
}
