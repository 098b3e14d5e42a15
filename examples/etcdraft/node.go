package etcdraft

import (
	"fmt"
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
	// committed entries that carry data, in log order, with their index and term.
	Applied []Entry
	// AppliedIndex is the index of the last committed entry applied (data or not), persisted with
	// Applied: a restarted node resumes after it.
	AppliedIndex uint64
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
	Committed []*pb.Entry // to apply once the rest is persisted
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
func (silent) Fatal(v ...any)            { panic(fmt.Sprint(v...)) }
func (silent) Fatalf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
func (silent) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (silent) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }

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
	applied := max(n.AppliedIndex, 1) // 1: the bootstrap snapshot
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
// (persistLater), which then applies the committed entries as the correct loop does. The node
// takes no other step in between, but it may crash.
func (n *Node) readySendBeforePersist(send func(*pb.Message)) {
	if n.Unpersisted != nil || !n.RN.HasReady() {
		return
	}
	rd := n.RN.Ready()
	for _, m := range rd.Messages {
		send(m)
	}
	b := &Batch{Committed: cloneEntries(rd.CommittedEntries)}
	if !raft.IsEmptyHardState(rd.HardState) {
		b.HardState = proto.Clone(rd.HardState).(*pb.HardState)
	}
	b.Entries = cloneEntries(rd.Entries)
	n.Unpersisted = b
}

func cloneEntries(ents []*pb.Entry) []*pb.Entry {
	var out []*pb.Entry
	for _, e := range ents {
		out = append(out, proto.Clone(e).(*pb.Entry))
	}
	return out
}

// persistLater writes what readySendBeforePersist left, and tells raft.
func (n *Node) persistLater(send func(*pb.Message)) {
	b := n.Unpersisted
	n.Unpersisted = nil
	n.persist(b.HardState, b.Entries)
	n.apply(b.Committed)
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
		n.AppliedIndex = e.GetIndex()
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
		out = make([]Entry, 0, len(ents))
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
