package etcdraft

import (
	"fmt"
	"strconv"

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

// summary renders a message as "MsgApp t2 i1 c0 [2:v1]": type, term, and what it carries. It
// runs for every message sent, so it appends rather than formats.
func summary(m *pb.Message) string {
	s := make([]byte, 0, 48)
	s = append(s, m.GetType().String()...)
	s = strconv.AppendUint(append(s, " t"...), m.GetTerm(), 10)
	switch m.GetType() {
	case pb.MsgApp:
		s = strconv.AppendUint(append(s, " i"...), m.GetIndex(), 10)
		s = strconv.AppendUint(append(s, " c"...), m.GetCommit(), 10)
		for _, e := range m.GetEntries() {
			s = strconv.AppendUint(append(s, " ["...), e.GetIndex(), 10)
			s = append(append(append(s, ':'), e.GetData()...), ']')
		}
	case pb.MsgAppResp, pb.MsgVoteResp, pb.MsgPreVoteResp:
		if m.GetReject() {
			s = append(s, " reject"...)
		} else if m.GetType() == pb.MsgAppResp {
			s = strconv.AppendUint(append(s, " i"...), m.GetIndex(), 10)
		}
	case pb.MsgVote, pb.MsgPreVote:
		s = strconv.AppendUint(append(s, " last "...), m.GetIndex(), 10)
		s = strconv.AppendUint(append(s, "/t"...), m.GetLogTerm(), 10)
	case pb.MsgHeartbeat:
		s = strconv.AppendUint(append(s, " c"...), m.GetCommit(), 10)
	}
	return string(s)
}
