package engine

import (
	"github.com/cmc-go/cmc"
)

// Tiny models for the refinement transcripts in testdata/refine.txt: a link that is opened with a
// request, retried on timeout a number of times the specification leaves to the implementation
// (a private variable of the specification), acknowledged, and closed.

// linkSpec is the specification's state: Budget is how many more retries it allows, private.
type linkSpec struct {
	Phase  string
	Budget int
}

func (s linkSpec) String() string { return s.Phase }

var tinySpec = cmc.Spec[linkSpec]{
	Name: "link",
	Init: linkSpec{Phase: "Closed"},
	Next: func(s linkSpec, event string) []cmc.Move[linkSpec] {
		mv := func(to linkSpec, actions ...string) cmc.Move[linkSpec] {
			return cmc.Move[linkSpec]{Actions: actions, To: to}
		}
		switch {
		case s.Phase == "Closed" && event == "open":
			return []cmc.Move[linkSpec]{mv(linkSpec{"Sent", 1}, "send"), mv(linkSpec{"Sent", 2}, "send")}
		case s.Phase == "Sent" && event == "timeout" && s.Budget > 0:
			return []cmc.Move[linkSpec]{mv(linkSpec{"Sent", s.Budget - 1}, "send")}
		case s.Phase == "Sent" && event == "timeout":
			return []cmc.Move[linkSpec]{mv(linkSpec{Phase: "Closed"})}
		case s.Phase == "Sent" && event == "ack":
			return []cmc.Move[linkSpec]{mv(linkSpec{Phase: "Open"})}
		case s.Phase == "Open" && event == "close":
			return []cmc.Move[linkSpec]{mv(linkSpec{Phase: "Closed"})}
		}
		return nil
	},
	Visible: func(s linkSpec) linkSpec { return linkSpec{Phase: s.Phase} },
}

// link is the implementation: it retries Max times.
type link struct {
	Phase string
	Tries int
	Max   int
	Acks  int // acknowledgements it will still get, a bound on the state space
}

// tinyLog is what a transition showed, outside the state: handlers write it, the observer takes it.
type tinyLog struct{ cmc.Observed }

func (l *tinyLog) event(e string)  { l.Event = e }
func (l *tinyLog) action(a string) { l.Actions = append(l.Actions, a) }

func (l *tinyLog) take(*cmc.Event) cmc.Observed {
	o := l.Observed
	l.Observed = cmc.Observed{}
	return o
}

// tinyModel builds the link, its retry budget given by a witness from the implementation.
// variant: "witness"; "eager" (no witness: the specification keeps the first budget it allows,
// one retry, and refuses the second); "stuck" (an ack leaves it in Sent, the seed's pppd
// mistake in small); "witness" (the retry budget comes from the implementation); "staged" (open
// takes two transitions, with another process's invisible steps between them); "staged-bad" (the
// second forgets to send); "init" (it starts where the specification does not).
func tinyModel(variant string) *cmc.Model {
	l := &link{Phase: "Closed", Max: 2, Acks: 1}
	if variant == "init" {
		l.Phase = "Open"
	}
	ticker := &counter{}
	log := &tinyLog{}
	m := cmc.NewModel("tiny-" + variant)
	p := m.Process("L", l)
	staged := variant == "staged" || variant == "staged-bad"
	if staged {
		p.On("open", func() { log.event("open"); l.Phase = "Opening" }, cmc.When(func() bool { return l.Phase == "Closed" }))
		p.On("transmit", func() {
			if variant != "staged-bad" {
				log.action("send")
			}
			l.Phase, l.Tries = "Sent", 0
		}, cmc.When(func() bool { return l.Phase == "Opening" }))
		m.Process("T", ticker).On("tick", func() { ticker.X++ }, cmc.When(func() bool { return ticker.X < 2 }))
	} else {
		p.On("open", func() {
			log.event("open")
			log.action("send")
			l.Phase, l.Tries = "Sent", 0
		}, cmc.When(func() bool { return l.Phase == "Closed" }))
	}
	p.On("timeout", func() {
		log.event("timeout")
		if l.Tries < l.Max {
			l.Tries++
			log.action("send")
			return
		}
		l.Phase = "Closed"
	}, cmc.When(func() bool { return l.Phase == "Sent" }))
	p.On("ack", func() {
		log.event("ack")
		l.Acks--
		if variant != "stuck" {
			l.Phase = "Open"
		}
	}, cmc.When(func() bool { return l.Phase == "Sent" && l.Acks > 0 }))
	p.On("close", func() { log.event("close"); l.Phase = "Closed" }, cmc.When(func() bool { return l.Phase == "Open" }))
	obs := cmc.Observer[linkSpec]{
		State: func() (linkSpec, bool) { return linkSpec{Phase: l.Phase}, l.Phase != "Opening" },
		Step:  log.take,
	}
	if variant != "eager" {
		obs.Witness = func(s linkSpec) linkSpec {
			if s.Phase == "Sent" {
				s.Budget = l.Max - l.Tries
			}
			return s
		}
	}
	cmc.Refines(m, tinySpec, obs)
	return m
}

func init() {
	for _, v := range []string{"eager", "witness", "stuck", "staged", "staged-bad", "init"} {
		testModels["refine-"+v] = func() *cmc.Model { return tinyModel(v) }
	}
}
