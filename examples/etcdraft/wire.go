package etcdraft

import (
	"fmt"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// A Wire is a raft message as it travels: marshalled, so the network holds bytes, not the
// sender's objects (whose entries the sender's log still holds), with a one-line summary for the
// sequence chart.
type Wire struct {
	Data    string
	Summary string
}

func (w Wire) String() string { return w.Summary }

func marshal(m *pb.Message) Wire {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("marshal %v: %v", m.GetType(), err))
	}
	return Wire{Data: string(b), Summary: summary(m)}
}

func unmarshal(w Wire) *pb.Message {
	m := &pb.Message{}
	if err := proto.Unmarshal([]byte(w.Data), m); err != nil {
		panic(fmt.Sprintf("unmarshal %s: %v", w.Summary, err))
	}
	return m
}

// summary renders a message as "MsgApp t2 i1 [v1]": type, term, and what it carries.
func summary(m *pb.Message) string {
	s := fmt.Sprintf("%v t%d", m.GetType(), m.GetTerm())
	switch m.GetType() {
	case pb.MsgApp:
		s += fmt.Sprintf(" i%d c%d", m.GetIndex(), m.GetCommit())
		for _, e := range m.GetEntries() {
			s += fmt.Sprintf(" [%d:%s]", e.GetIndex(), e.GetData())
		}
	case pb.MsgAppResp, pb.MsgVoteResp, pb.MsgPreVoteResp:
		if m.GetReject() {
			s += " reject"
		} else if m.GetType() == pb.MsgAppResp {
			s += fmt.Sprintf(" i%d", m.GetIndex())
		}
	case pb.MsgVote, pb.MsgPreVote:
		s += fmt.Sprintf(" last %d/t%d", m.GetIndex(), m.GetLogTerm())
	case pb.MsgHeartbeat:
		s += fmt.Sprintf(" c%d", m.GetCommit())
	}
	return s
}
