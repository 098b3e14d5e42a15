// Package rfc2131 is the DHCP client state machine of RFC 2131 section 4.4 (Figure 5), as a
// specification to check client implementations against (cmc.Refines, package conform). It is
// transcribed from the figure's arcs, "event / actions", and knows nothing of any implementation.
//
// The figure's arcs and where this table departs from them:
//   - INIT and INIT-REBOOT leave on their own ("-/Send DHCPDISCOVER", "-/Send DHCPREQUEST"); the
//     event is called start here.
//   - "Select offer" in SELECTING is the event select, the end of the client's wait for offers.
//   - Section 4.1's retransmission (the client "retransmits the DHCPREQUEST" or DHCPDISCOVER when
//     no reply comes) is the event timeout in SELECTING, REQUESTING and REBOOTING, which sends the
//     same message again; the figure does not draw it.
//   - "DHCPACK (not accept)" and "DHCPACK" are the same message with two outcomes: both are the
//     event DHCPACK, with two moves, told apart by their actions.
//   - A message the figure does not show in a state is one the client discards unseen (a
//     transaction id that does not match): no event at all.
package rfc2131

import "github.com/cmc-go/cmc"

// The states of Figure 5.
const (
	Init       = "INIT"
	Selecting  = "SELECTING"
	Requesting = "REQUESTING"
	Bound      = "BOUND"
	Renewing   = "RENEWING"
	Rebinding  = "REBINDING"
	InitReboot = "INIT-REBOOT"
	Rebooting  = "REBOOTING"
)

// States lists them.
var States = []string{Init, Selecting, Requesting, Bound, Renewing, Rebinding, InitReboot, Rebooting}

// The actions, named after the figure's words.
const (
	Discover = "send DHCPDISCOVER"
	Request  = "send DHCPREQUEST"
	Decline  = "send DHCPDECLINE"
	Collect  = "collect reply"
	Discard  = "discard"
	Record   = "record lease, set timers"
	Halt     = "halt network"
)

// Events lists the events of the figure (and of section 4.1's retransmission).
var Events = []string{"start", "DHCPOFFER", "select", "DHCPACK", "DHCPNAK", "timeout", "T1", "T2", "lease expired"}

type arc struct {
	from, event string
	actions     []string
	to          string
}

// figure5 is Figure 5, arc by arc.
var figure5 = []arc{
	{Init, "start", []string{Discover}, Selecting},
	{InitReboot, "start", []string{Request}, Rebooting},
	{Selecting, "DHCPOFFER", []string{Collect}, Selecting},
	{Selecting, "select", []string{Request}, Requesting},
	{Selecting, "timeout", []string{Discover}, Selecting},
	{Requesting, "DHCPOFFER", []string{Discard}, Requesting},
	{Requesting, "DHCPACK", []string{Record}, Bound},
	{Requesting, "DHCPACK", []string{Decline}, Init},
	{Requesting, "DHCPNAK", []string{Discard}, Init},
	{Requesting, "timeout", []string{Request}, Requesting},
	{Bound, "DHCPOFFER", []string{Discard}, Bound},
	{Bound, "DHCPACK", []string{Discard}, Bound},
	{Bound, "DHCPNAK", []string{Discard}, Bound},
	{Bound, "T1", []string{Request}, Renewing},
	{Renewing, "DHCPACK", []string{Record}, Bound},
	{Renewing, "DHCPNAK", []string{Halt}, Init},
	{Renewing, "T2", []string{Request}, Rebinding},
	{Rebinding, "DHCPACK", []string{Record}, Bound},
	{Rebinding, "DHCPNAK", []string{Halt}, Init},
	{Rebinding, "lease expired", []string{Halt}, Init},
	{Rebooting, "DHCPACK", []string{Record}, Bound},
	{Rebooting, "DHCPNAK", nil, Init},
	{Rebooting, "timeout", []string{Request}, Rebooting},
}

// Next lists the moves Figure 5 allows from state s on event.
func Next(s, event string) []cmc.Move[string] {
	var out []cmc.Move[string]
	for _, a := range figure5 {
		if a.from == s && a.event == event {
			out = append(out, cmc.Move[string]{Actions: a.actions, To: a.to})
		}
	}
	return out
}

// Spec is the figure as a cmc specification named name, starting in init (INIT, or INIT-REBOOT
// for a client that remembers a lease).
func Spec(name, init string) cmc.Spec[string] {
	return cmc.Spec[string]{Name: name, Init: init, Next: Next, Events: Events}
}
