package ppp

import (
	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/env"
	"github.com/cmc-go/cmc/examples/ppp/lcp"
	"github.com/cmc-go/cmc/examples/ppp/rfc1661"
)

// SpecPeer is the other end played by the specification itself, for assume-guarantee reasoning
// as Alur and Wang did it: to check one implementation, its peer is any behaviour RFC 1661's
// table allows, not another copy of the same code. It takes every move of the table, turning
// the table's send actions into packets and received packets into the table's events; which
// Configure-Request is good (RCR+) or bad (RCR-) is its choice, as the RFC leaves it to the
// implementation. It keeps no identifiers beyond what its answers echo: the table has none.
type SpecPeer struct {
	Spec   rfc1661.State
	ID     uint8          // identifier of its last request
	Answer lcp.Packet     // the request being answered (its identifier and options)
	Timer  bool           // a request is outstanding: TO+ or TO- may come
	Lower  bool           // its lower layer is up
	Ops    int            // administrative events and lower-layer changes left
	counts rfc1661.Counts `cmc:"-"`
}

// step takes the table's move on event, sending its packets to the implementation at address
// to over net; ok is false when the table has no move.
func (p *SpecPeer) step(event string, net *env.Network[lcp.Packet], me int) bool {
	moves := p.counts.Next(p.Spec, event)
	if len(moves) == 0 {
		return false
	}
	mv := moves[0]
	for _, a := range mv.Actions {
		switch a {
		case "scr":
			p.ID++
			_ = net.Send(me, 1-me, lcp.Packet{Code: lcp.ConfReq, ID: p.ID})
		case "str":
			p.ID++
			_ = net.Send(me, 1-me, lcp.Packet{Code: lcp.TermReq, ID: p.ID})
		case "sca":
			_ = net.Send(me, 1-me, lcp.Packet{Code: lcp.ConfAck, ID: p.Answer.ID, Opts: p.Answer.Opts})
		case "scn":
			// A Nak of the MRU asked for, or a Reject of it when none was: either is a Nak/Rej.
			nak := lcp.Packet{Code: lcp.ConfRej, ID: p.Answer.ID, Opts: lcp.Options{PFC: p.Answer.Opts.PFC}}
			if p.Answer.Opts.MRU != 0 {
				nak = lcp.Packet{Code: lcp.ConfNak, ID: p.Answer.ID, Opts: lcp.Options{MRU: p.Answer.Opts.MRU + 1}}
			}
			_ = net.Send(me, 1-me, nak)
		case "sta":
			_ = net.Send(me, 1-me, lcp.Packet{Code: lcp.TermAck, ID: p.Answer.ID})
		}
	}
	p.Spec = mv.To
	switch mv.To.Phase {
	case rfc1661.Closing, rfc1661.Stopping, rfc1661.ReqSent, rfc1661.AckRcvd, rfc1661.AckSent:
		p.Timer = p.Timer || len(mv.Actions) > 0 && (has(mv.Actions, "scr") || has(mv.Actions, "str") || has(mv.Actions, "zrc"))
	default:
		p.Timer = false
	}
	p.Answer = lcp.Packet{}
	return true
}

func has(actions []string, a string) bool {
	for _, x := range actions {
		if x == a {
			return true
		}
	}
	return false
}

// peerEvents declares the spec peer's events on process proc.
func peerEvents(proc *cmc.Proc, p *SpecPeer, net *env.Network[lcp.Packet], me int) {
	admin := func() bool { return p.Ops > 0 }
	can := func(event string) bool { return len(p.counts.Next(p.Spec, event)) > 0 }
	proc.On("Up", func() { p.Ops--; p.Lower = true; p.step("Up", net, me) }, cmc.When(func() bool { return admin() && !p.Lower && can("Up") }))
	proc.On("Down", func() { p.Ops--; p.Lower = false; p.step("Down", net, me) }, cmc.When(func() bool { return admin() && p.Lower && can("Down") }))
	proc.On("Open", func() { p.Ops--; p.step("Open", net, me) }, cmc.When(func() bool { return admin() && can("Open") }))
	proc.On("Close", func() { p.Ops--; p.step("Close", net, me) }, cmc.When(func() bool { return admin() && can("Close") }))
	proc.On("timeout", func() {
		if !p.step("TO+", net, me) {
			p.step("TO-", net, me)
		}
	}, cmc.When(func() bool { return p.Timer && (can("TO+") || can("TO-")) }))
	proc.On("receive", func() {
		pkt, ok := net.Receive(me)
		if !ok {
			return
		}
		p.Answer = pkt.Msg
		var event string
		switch pkt.Msg.Code {
		case lcp.ConfReq:
			event = cmc.ChooseOf([]string{"RCR+", "RCR-"}, func(e string) string { return e })
		case lcp.ConfAck:
			event = "RCA"
		case lcp.ConfNak, lcp.ConfRej:
			event = "RCN"
		case lcp.TermReq:
			event = "RTR"
		case lcp.TermAck:
			event = "RTA"
		}
		if !p.step(event, net, me) {
			p.Answer = lcp.Packet{} // a packet the table has no move for here is discarded
		}
	}, cmc.When(func() bool { return net.Waiting(me) }))
}
