// Package aodv is an AODV router (RFC 3561, Ad hoc On-Demand Distance Vector routing), written
// as real protocol code so that the checker has a real implementation to check, as CMC checked
// mad-hoc, Kernel AODV and AODV-UU (CMC thesis, chapter 4).
//
// AODV is the thesis's first case study because its correctness property is sharp: the routing
// tables must never form a loop, at any instant, and AODV has no way to recover from one. CMC
// found a loop in the specification itself: a node that copies the sequence number of a stale
// route error into its table sets its clock back (section 4.6.5, Figure 4.8). Config.SpecRERRBug
// selects that rule or its fix, so the same code shows the bug and shows it gone.
//
// # Shape
//
// A Router is one node. Every exported method is one event that runs to completion: Receive (a
// message arrives), RequestRoute (an application wants a route), LinkBroken (a neighbour is
// gone), ExpireRoute, ExpireRREQ and EndRebootWait (a timeout runs out), Reboot, and Tick (fire
// whatever the clock says is due). The router reaches the world only through the interfaces in
// iface.go (Link, Clock, Alloc), held in fields tagged cmc:"-"; the rest of the struct is the
// node's state, made of sorted slices and plain values so a checker can capture and compare it.
// There are no goroutines, timers, randomness or package variables.
//
// The same router runs on a network: wire.go encodes messages in RFC 3561's packet formats
// (with one-byte addresses), a UDP socket can implement Link, the system clock Clock, and a
// ticker calls Tick.
//
// # Routes
//
// One entry per destination: sequence number (and whether it is known), hop count, next hop,
// valid or invalid, expiry and precursors. Every route learnt from a message is installed by one
// rule (Route.fresher: newer sequence number, or the same one and fewer hops, or the same one
// over an invalid route), and every invalidation by a break or an expiry increments the sequence
// number. Together these keep sequence numbers non-decreasing, and hop counts at equal sequence
// numbers decreasing, along every chain of next hops, which is why the tables stay loop-free.
// The RFC's reverse-route update in section 6.5 is unconditional; here it obeys the same rule,
// because the unconditional update can break that order.
//
// # Not implemented
//
// Data forwarding and its route-lifetime refresh and RERRs (section 6.11 case (ii)); expanding
// ring search, RREQ retries and rate limits (the caller retries); sending Hello messages (those
// received are used, section 6.9; the environment reports breaks through LinkBroken); local repair; RREP-ACK and blacklists; subnets; multicast (the J and R flags are
// carried, not acted on). After a reboot the router learns no routes while it waits; see Reboot.
package aodv
