// Package retransmit registers Retransmit: a sender that numbers its messages (Seq: every second
// one is acknowledged at once, so handlers read it) and counts its retransmissions (Retries: a
// statistic nothing reads). Both only grow, so the state space is infinite; cmcdap suggest should
// suggest leaving Retries out and keep Seq.
package retransmit

import "github.com/cmc-go/cmc"

type sender struct {
	Seq     int
	Retries int
	Acked   bool
}

func init() {
	cmc.Register("Retransmit", func(*cmc.Params) *cmc.Model {
		s := &sender{Acked: true}
		m := cmc.NewModel("Retransmit")
		m.Process("s", s).
			On("send", func() {
				s.Seq++
				s.Acked = s.Seq%2 == 0
			}, cmc.When(func() bool { return s.Acked })).
			On("timeout", func() { s.Retries++ }, cmc.When(func() bool { return !s.Acked })).
			On("ack", func() { s.Acked = true }, cmc.When(func() bool { return !s.Acked }))
		return m
	})
}
