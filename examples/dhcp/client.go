// Package dhcp is a DHCP client (RFC 2131) written as protocol code, checked by refinement
// against the client state machine of the RFC's section 4.4 (package rfc2131), as Alur and Wang
// checked ISC dhclient 2.0 (their second case study, in which they found no inconsistency).
//
// Like dhclient, the client takes some of the figure's steps in two transitions: on a DHCPACK
// it first probes the offered address (RFC 2131 section 4.4.1: the client SHOULD check that the
// address is not in use, with ARP) and only when the probe answers records the lease or declines
// it. The model's observer says the client is between two specification states while it
// probes, and the engine checks the DHCPACK and the probe's outcome as one step.
package dhcp

import "fmt"

// State is the client's state: the figure's, and Probing, between REQUESTING and BOUND or INIT.
type State uint8

const (
	Init State = iota
	Selecting
	Requesting
	Probing
	Bound
	Renewing
	Rebinding
	InitReboot
	Rebooting
)

var stateNames = [...]string{"INIT", "SELECTING", "REQUESTING", "probing", "BOUND", "RENEWING", "REBINDING", "INIT-REBOOT", "REBOOTING"}

func (s State) String() string { return stateNames[s] }

// An Op is a DHCP message type (RFC 2132 option 53).
type Op uint8

const (
	Discover Op = iota + 1
	Offer
	Request
	Decline
	Ack
	Nak
)

var opNames = [...]string{"", "DHCPDISCOVER", "DHCPOFFER", "DHCPREQUEST", "DHCPDECLINE", "DHCPACK", "DHCPNAK"}

func (o Op) String() string { return opNames[o] }

// A Msg is a DHCP message, reduced to what the state machine reads: type, transaction id, and
// the address offered or requested (yiaddr or the requested-address option; 0: none).
type Msg struct {
	Op   Op
	XID  uint8
	Addr uint8
}

func (m Msg) String() string { return fmt.Sprintf("%v xid=%d addr=%d", m.Op, m.XID, m.Addr) }

// Host is the client's world: the network, its timers, the ARP probe and the interface.
type Host interface {
	Send(m Msg)
	StartTimer(name string)
	StopTimer(name string)
	Probe(addr uint8)     // start an ARP probe; its answer comes as Client.ProbeDone
	Configure(addr uint8) // use the leased address
	Halt()                // stop using it
}

// A Tracer hears each step in the words of RFC 2131's figure: the event, the actions and the
// state reached (Probing: the step goes on).
type Tracer interface {
	Step(event string, actions []string, to State)
}

// The timers.
const (
	Retransmit = "retransmit"
	SelectWait = "select"
	T1         = "T1"
	T2         = "T2"
	LeaseEnd   = "lease"
)

// Config is the client's configuration.
type Config struct {
	Retries int // retransmissions of a DISCOVER or REQUEST before giving up waiting (section 4.1)
	// NakKeepsAddress is a plausible mistake, to show the check is not vacuous: on a DHCPNAK
	// while renewing or rebinding, the client starts again but does not halt the network (it
	// keeps using an address the server refused).
	NakKeepsAddress bool
}

// A Client is one DHCP client. Each exported method is one event; the fields not tagged
// cmc:"-" are its state.
type Client struct {
	State   State
	XID     uint8 // the current transaction
	Offered uint8 // the address of the offer selected
	Lease   uint8 // the address leased (0: none)
	Tries   int   // retransmissions left

	cfg    Config   `cmc:"-"`
	host   Host     `cmc:"-"`
	trace  Tracer   `cmc:"-"`
	event  string   `cmc:"-"`
	action []string `cmc:"-"`
}

// Init sets c up: in INIT, or in INIT-REBOOT remembering lease.
func (c *Client) Init(cfg Config, host Host, trace Tracer, lease uint8) {
	*c = Client{State: Init, cfg: cfg, host: host, trace: trace}
	if lease != 0 {
		c.State, c.Lease = InitReboot, lease
	}
}

// Start begins to acquire a lease (INIT) or to confirm the remembered one (INIT-REBOOT).
func (c *Client) Start() {
	c.begin("start")
	defer c.end()
	switch c.State {
	case Init:
		c.XID++
		c.Offered = 0
		c.exchange(Msg{Op: Discover, XID: c.XID}, "send DHCPDISCOVER")
		c.State = Selecting
	case InitReboot:
		c.XID++
		c.exchange(Msg{Op: Request, XID: c.XID, Addr: c.Lease}, "send DHCPREQUEST")
		c.State = Rebooting
	}
}

// Receive handles a message from a server. One of another transaction is dropped unseen.
func (c *Client) Receive(m Msg) {
	if m.XID != c.XID {
		return
	}
	switch {
	case m.Op == Offer && c.State == Selecting:
		c.begin("DHCPOFFER")
		defer c.end()
		if c.Offered == 0 { // the first offer is the one the client will take
			c.Offered = m.Addr
			c.host.StartTimer(SelectWait)
		}
		c.act("collect reply")
	case m.Op == Ack && (c.State == Requesting || c.State == Rebooting || c.State == Renewing || c.State == Rebinding):
		c.begin("DHCPACK")
		defer c.end()
		c.host.StopTimer(Retransmit)
		if c.State == Requesting {
			c.Offered = m.Addr
			c.host.Probe(m.Addr) // the step ends when the probe answers
			c.State = Probing
			return
		}
		c.bind(m.Addr)
	case m.Op == Nak && (c.State == Requesting || c.State == Rebooting || c.State == Renewing || c.State == Rebinding):
		c.begin("DHCPNAK")
		defer c.end()
		c.host.StopTimer(Retransmit)
		switch c.State {
		case Requesting:
			c.act("discard")
		case Renewing, Rebinding:
			c.host.StopTimer(T2)
			c.host.StopTimer(LeaseEnd)
			if !c.cfg.NakKeepsAddress {
				c.halt()
			}
		}
		c.Offered, c.Lease = 0, 0
		c.State = Init
	case (m.Op == Offer && c.State == Requesting) || c.State == Bound:
		c.begin(m.Op.String())
		defer c.end()
		c.act("discard")
	}
}

// ProbeDone is the ARP probe's answer: whether another host uses the address.
func (c *Client) ProbeDone(inUse bool) {
	if c.State != Probing {
		return
	}
	c.begin("") // the DHCPACK's step goes on
	defer c.end()
	if inUse {
		c.send(Msg{Op: Decline, XID: c.XID, Addr: c.Offered}, "send DHCPDECLINE")
		c.Offered = 0
		c.State = Init
		return
	}
	c.bind(c.Offered)
}

// Timeout handles an expired timer.
func (c *Client) Timeout(name string) {
	switch {
	case name == SelectWait && c.State == Selecting:
		c.begin("select")
		defer c.end()
		c.exchange(Msg{Op: Request, XID: c.XID, Addr: c.Offered}, "send DHCPREQUEST")
		c.State = Requesting
	case name == Retransmit && c.Tries > 0 && (c.State == Selecting || c.State == Requesting || c.State == Rebooting):
		c.begin("timeout")
		defer c.end()
		c.Tries--
		switch c.State {
		case Selecting:
			c.send(Msg{Op: Discover, XID: c.XID}, "send DHCPDISCOVER")
		case Requesting:
			c.send(Msg{Op: Request, XID: c.XID, Addr: c.Offered}, "send DHCPREQUEST")
		case Rebooting:
			c.send(Msg{Op: Request, XID: c.XID, Addr: c.Lease}, "send DHCPREQUEST")
		}
		c.host.StartTimer(Retransmit)
	case name == T1 && c.State == Bound:
		c.begin("T1")
		defer c.end()
		c.XID++
		c.send(Msg{Op: Request, XID: c.XID, Addr: c.Lease}, "send DHCPREQUEST")
		c.host.StartTimer(T2)
		c.State = Renewing
	case name == T2 && c.State == Renewing:
		c.begin("T2")
		defer c.end()
		c.XID++
		c.send(Msg{Op: Request, XID: c.XID, Addr: c.Lease}, "send DHCPREQUEST")
		c.host.StartTimer(LeaseEnd)
		c.State = Rebinding
	case name == LeaseEnd && c.State == Rebinding:
		c.begin("lease expired")
		defer c.end()
		c.host.StopTimer(Retransmit)
		c.halt()
		c.Lease = 0
		c.State = Init
	}
}

// bind records the lease and arms T1 (T2 and the lease's end follow it, in that order).
func (c *Client) bind(addr uint8) {
	c.act("record lease, set timers")
	c.host.StopTimer(T2)
	c.host.StopTimer(LeaseEnd)
	c.Lease, c.Offered = addr, 0
	c.host.Configure(addr)
	c.host.StartTimer(T1)
	c.State = Bound
}

func (c *Client) halt() { c.act("halt network"); c.host.Halt() }

// send sends m, logged as the figure's action.
func (c *Client) send(m Msg, action string) {
	c.act(action)
	c.host.Send(m)
}

// exchange sends the first message of an exchange that waits for a reply, retransmitted on
// timeout up to Retries times (section 4.1).
func (c *Client) exchange(m Msg, action string) {
	c.send(m, action)
	c.Tries = c.cfg.Retries
	c.host.StartTimer(Retransmit)
}

func (c *Client) begin(event string) { c.event, c.action = event, c.action[:0] }
func (c *Client) act(a string)       { c.action = append(c.action, a) }

func (c *Client) end() {
	if c.trace != nil {
		c.trace.Step(c.event, c.action, c.State)
	}
}
