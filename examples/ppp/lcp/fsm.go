package lcp

// State is a state of the option negotiation automaton (RFC 1661 section 4.2).
type State uint8

const (
	Initial State = iota
	Starting
	Closed
	Stopped
	Closing
	Stopping
	ReqSent
	AckRcvd
	AckSent
	Opened
)

var stateNames = [...]string{"Initial", "Starting", "Closed", "Stopped", "Closing", "Stopping",
	"Req-Sent", "Ack-Rcvd", "Ack-Sent", "Opened"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state?"
}

// Callbacks is the automaton's world, as pppd's fsm_callbacks: the link it sends on, its one
// restart timer, and the layer above, told of the automaton's This-Layer-* actions.
type Callbacks interface {
	Send(p Packet)
	StartTimer() // (re)arm the restart timer
	StopTimer()
	Up()       // tlu: the link is open; the upper layer may start
	Down()     // tld: the link is leaving Opened
	Started()  // tls: the lower layer is needed
	Finished() // tlf: the lower layer is no longer needed
}

// A Tracer hears each step of the automaton in RFC 1661's words, as pppd's debug log does: the
// event, the actions it took and the state it reached. An event the automaton discards (a stale
// Configure-Ack) is no step.
type Tracer interface {
	Step(event string, actions []string, to State)
}

// Config is one end's configuration.
type Config struct {
	MaxConfigure int     // Max-Configure: Configure-Requests sent without an answer (RFC default 10)
	MaxTerminate int     // Max-Terminate: Terminate-Requests sent without an answer (RFC default 2)
	Want         Options // the options this end asks for at first
	MinMRU       uint16  // the smallest MRU this end accepts from the peer (0: any)
	AllowPFC     bool    // whether this end accepts the peer's Protocol-Field-Compression
	// PPPD240RTA reproduces pppd 2.4.0's fsm_rtermack: on a Terminate-Ack in Opened it brings the
	// layer down and sends a Configure-Request but stays in Opened, where RFC 1661 moves to
	// Req-Sent (Alur and Wang found it by refinement checking).
	PPPD240RTA bool
}

// An FSM is one end of LCP option negotiation: RFC 1661's automaton, with the restart timer and
// counter of section 4.6 and the negotiation of the options in Options. Each exported method is
// one event and runs to completion. The fields not tagged cmc:"-" are its whole state.
type FSM struct {
	State   State
	Restart int     // the restart counter
	ID      uint8   // identifier of the last request sent
	Ask     Options // what the next Configure-Request asks for
	Peer    Options // what the peer asked for and this end acked
	Mine    Options // what the peer acked of this end's request

	cfg    Config    `cmc:"-"`
	cb     Callbacks `cmc:"-"`
	trace  Tracer    `cmc:"-"`
	event  string    `cmc:"-"` // the step being handled, for the tracer
	action []string  `cmc:"-"`
}

// New makes an automaton in the Initial state. trace may be nil.
func New(cfg Config, cb Callbacks, trace Tracer) *FSM {
	f := &FSM{}
	f.Init(cfg, cb, trace)
	return f
}

// Init sets up f in the Initial state.
func (f *FSM) Init(cfg Config, cb Callbacks, trace Tracer) {
	*f = FSM{State: Initial, Ask: cfg.Want, cfg: cfg, cb: cb, trace: trace}
}

// Up: the lower layer is up.
func (f *FSM) Up() {
	f.begin("Up")
	defer f.end()
	switch f.State {
	case Initial:
		f.State = Closed
	case Starting:
		f.initRestartCount(f.cfg.MaxConfigure)
		f.sendConfReq()
		f.State = ReqSent
	}
}

// Down: the lower layer is down.
func (f *FSM) Down() {
	f.begin("Down")
	defer f.end()
	switch f.State {
	case Closed:
		f.State = Initial
	case Stopped:
		f.thisLayerStarted()
		f.State = Starting
	case Closing:
		f.cb.StopTimer()
		f.State = Initial
	case Stopping, ReqSent, AckRcvd, AckSent:
		f.cb.StopTimer()
		f.State = Starting
	case Opened:
		f.thisLayerDown()
		f.State = Starting
	}
}

// Open: the administrator opens the link.
func (f *FSM) Open() {
	f.begin("Open")
	defer f.end()
	switch f.State {
	case Initial:
		f.thisLayerStarted()
		f.State = Starting
	case Closed:
		f.Ask = f.cfg.Want
		f.initRestartCount(f.cfg.MaxConfigure)
		f.sendConfReq()
		f.State = ReqSent
	case Closing:
		f.State = Stopping
	}
}

// Close: the administrator closes the link.
func (f *FSM) Close() {
	f.begin("Close")
	defer f.end()
	switch f.State {
	case Starting:
		f.thisLayerFinished()
		f.State = Initial
	case Stopped:
		f.State = Closed
	case Stopping:
		f.State = Closing
	case ReqSent, AckRcvd, AckSent:
		f.initRestartCount(f.cfg.MaxTerminate)
		f.sendTermReq()
		f.State = Closing
	case Opened:
		f.thisLayerDown()
		f.initRestartCount(f.cfg.MaxTerminate)
		f.sendTermReq()
		f.State = Closing
	}
}

// Timeout: the restart timer expired.
func (f *FSM) Timeout() {
	if f.Restart > 0 {
		f.begin("TO+")
	} else {
		f.begin("TO-")
	}
	defer f.end()
	switch f.State {
	case Closing, Stopping:
		if f.Restart > 0 {
			f.sendTermReq()
			return
		}
		f.thisLayerFinished()
		if f.State == Closing {
			f.State = Closed
		} else {
			f.State = Stopped
		}
	case ReqSent, AckRcvd, AckSent:
		if f.Restart > 0 {
			f.sendConfReq()
			if f.State == AckRcvd {
				f.State = ReqSent
			}
			return
		}
		f.thisLayerFinished()
		f.State = Stopped
	}
}

// Input handles a packet from the peer.
func (f *FSM) Input(p Packet) {
	if f.State == Initial || f.State == Starting {
		return // RFC 1661 4.2: no packets before the lower layer is up
	}
	switch p.Code {
	case ConfReq:
		f.rconfreq(p)
	case ConfAck:
		f.rconfack(p)
	case ConfNak, ConfRej:
		f.rconfnakrej(p)
	case TermReq:
		f.rtermreq(p)
	case TermAck:
		f.rtermack()
	}
}

// rconfreq: Receive-Configure-Request, good (RCR+) or bad (RCR-) as the options are.
func (f *FSM) rconfreq(p Packet) {
	reply, good := f.judge(p)
	if good {
		f.begin("RCR+")
	} else {
		f.begin("RCR-")
	}
	defer f.end()
	switch f.State {
	case Closed:
		f.sendTermAck(p.ID)
		return
	case Closing, Stopping:
		return
	case Stopped:
		f.Ask = f.cfg.Want
		f.initRestartCount(f.cfg.MaxConfigure)
		f.sendConfReq()
	case Opened:
		f.thisLayerDown()
		f.sendConfReq()
	}
	f.answer(reply, good)
	switch {
	case good && f.State == AckRcvd:
		f.cb.StopTimer()
		f.thisLayerUp()
		f.State = Opened
	case good:
		f.State = AckSent
	case f.State != AckRcvd:
		f.State = ReqSent
	}
}

// judge looks at the peer's Configure-Request: options to reject, else values to nak, else
// the request is good and is acked as it came (RFC 1661 section 5.1 to 5.4).
func (f *FSM) judge(p Packet) (Packet, bool) {
	var rej, nak Options
	if p.Opts.PFC && !f.cfg.AllowPFC {
		rej.PFC = true
	}
	if !rej.Empty() {
		return Packet{Code: ConfRej, ID: p.ID, Opts: rej}, false
	}
	if p.Opts.MRU != 0 && p.Opts.MRU < f.cfg.MinMRU {
		nak.MRU = f.cfg.MinMRU
	}
	if !nak.Empty() {
		return Packet{Code: ConfNak, ID: p.ID, Opts: nak}, false
	}
	return Packet{Code: ConfAck, ID: p.ID, Opts: p.Opts}, true
}

func (f *FSM) answer(reply Packet, good bool) {
	if good {
		f.Peer = reply.Opts
		f.act("sca")
	} else {
		f.act("scn")
	}
	f.cb.Send(reply)
}

// rconfack: Receive-Configure-Ack. One that does not answer the last request is discarded.
func (f *FSM) rconfack(p Packet) {
	if p.ID != f.ID || p.Opts != f.Ask {
		return
	}
	f.begin("RCA")
	defer f.end()
	switch f.State {
	case Closed, Stopped:
		f.sendTermAck(p.ID)
	case ReqSent:
		f.Mine = p.Opts
		f.initRestartCount(f.cfg.MaxConfigure)
		f.State = AckRcvd
	case AckRcvd:
		f.sendConfReq() // a crossed connection: start again
		f.State = ReqSent
	case AckSent:
		f.Mine = p.Opts
		f.cb.StopTimer()
		f.initRestartCount(f.cfg.MaxConfigure)
		f.thisLayerUp()
		f.State = Opened
	case Opened:
		f.thisLayerDown()
		f.sendConfReq()
		f.State = ReqSent
	}
}

// rconfnakrej: Receive-Configure-Nak or Reject (RCN): the next request asks for what the peer
// would accept, without what it rejected.
func (f *FSM) rconfnakrej(p Packet) {
	if p.ID != f.ID {
		return
	}
	f.begin("RCN")
	defer f.end()
	if f.State == Closed || f.State == Stopped {
		f.sendTermAck(p.ID)
		return
	}
	if f.State == Closing || f.State == Stopping {
		return
	}
	if p.Code == ConfNak && p.Opts.MRU != 0 {
		f.Ask.MRU = p.Opts.MRU
	}
	if p.Code == ConfRej {
		if p.Opts.MRU != 0 {
			f.Ask.MRU = 0
		}
		if p.Opts.PFC {
			f.Ask.PFC = false
		}
	}
	switch f.State {
	case ReqSent, AckSent:
		f.initRestartCount(f.cfg.MaxConfigure)
		f.sendConfReq()
	case AckRcvd:
		f.sendConfReq()
		f.State = ReqSent
	case Opened:
		f.thisLayerDown()
		f.sendConfReq()
		f.State = ReqSent
	}
}

// rtermreq: Receive-Terminate-Request.
func (f *FSM) rtermreq(p Packet) {
	f.begin("RTR")
	defer f.end()
	switch f.State {
	case AckRcvd, AckSent:
		f.State = ReqSent
	case Opened:
		f.thisLayerDown()
		f.zeroRestartCount()
		f.State = Stopping
	}
	f.sendTermAck(p.ID)
}

// rtermack: Receive-Terminate-Ack.
func (f *FSM) rtermack() {
	f.begin("RTA")
	defer f.end()
	switch f.State {
	case Closing:
		f.cb.StopTimer()
		f.thisLayerFinished()
		f.State = Closed
	case Stopping:
		f.cb.StopTimer()
		f.thisLayerFinished()
		f.State = Stopped
	case AckRcvd:
		f.State = ReqSent
	case Opened:
		f.thisLayerDown()
		f.sendConfReq()
		if !f.cfg.PPPD240RTA {
			f.State = ReqSent
		}
	}
}

// The actions of RFC 1661 section 4.4, each recorded for the tracer.

func (f *FSM) thisLayerUp()       { f.act("tlu"); f.cb.Up() }
func (f *FSM) thisLayerDown()     { f.act("tld"); f.cb.Down() }
func (f *FSM) thisLayerStarted()  { f.act("tls"); f.cb.Started() }
func (f *FSM) thisLayerFinished() { f.act("tlf"); f.cb.Finished() }

func (f *FSM) initRestartCount(n int) { f.act("irc"); f.Restart = n }

// zeroRestartCount lets the peer see the Terminate-Ack: one timeout in Stopping, then Stopped.
func (f *FSM) zeroRestartCount() { f.act("zrc"); f.Restart = 0; f.cb.StartTimer() }

func (f *FSM) sendConfReq() {
	f.act("scr")
	f.ID++
	f.Restart--
	f.cb.Send(Packet{Code: ConfReq, ID: f.ID, Opts: f.Ask})
	f.cb.StartTimer()
}

func (f *FSM) sendTermReq() {
	f.act("str")
	f.ID++
	f.Restart--
	f.cb.Send(Packet{Code: TermReq, ID: f.ID})
	f.cb.StartTimer()
}

func (f *FSM) sendTermAck(id uint8) {
	f.act("sta")
	f.cb.Send(Packet{Code: TermAck, ID: id})
}

func (f *FSM) begin(event string) { f.event, f.action = event, f.action[:0] }

func (f *FSM) act(a string) { f.action = append(f.action, a) }

func (f *FSM) end() {
	if f.trace != nil {
		f.trace.Step(f.event, f.action, f.State)
	}
}
