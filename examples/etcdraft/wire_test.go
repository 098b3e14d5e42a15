package etcdraft

import (
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"
)

// The sequence chart's summaries, as fmt rendered them before summary appended them itself.
func TestSummary(t *testing.T) {
	u := func(x uint64) *uint64 { return &x }
	typ := func(x pb.MessageType) *pb.MessageType { return &x }
	yes := true
	for _, c := range []struct {
		m    *pb.Message
		want string
	}{
		{&pb.Message{Type: typ(pb.MsgApp), Term: u(2), Index: u(1), Commit: u(1), Entries: []*pb.Entry{{Index: u(2), Data: []byte("v1")}, {Index: u(3)}}}, "MsgApp t2 i1 c1 [2:v1] [3:]"},
		{&pb.Message{Type: typ(pb.MsgAppResp), Term: u(2), Index: u(3)}, "MsgAppResp t2 i3"},
		{&pb.Message{Type: typ(pb.MsgAppResp), Term: u(2), Index: u(3), Reject: &yes}, "MsgAppResp t2 reject"},
		{&pb.Message{Type: typ(pb.MsgVoteResp), Term: u(1)}, "MsgVoteResp t1"},
		{&pb.Message{Type: typ(pb.MsgVote), Term: u(3), Index: u(2), LogTerm: u(1)}, "MsgVote t3 last 2/t1"},
		{&pb.Message{Type: typ(pb.MsgHeartbeat), Term: u(2), Commit: u(4)}, "MsgHeartbeat t2 c4"},
		{&pb.Message{Type: typ(pb.MsgHup)}, "MsgHup t0"},
	} {
		if got := summary(c.m); got != c.want {
			t.Errorf("summary = %q, want %q", got, c.want)
		}
	}
}
