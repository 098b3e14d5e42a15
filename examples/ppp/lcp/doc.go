// Package lcp is PPP's Link Control Protocol option negotiation (RFC 1661), written as protocol
// code in the shape of pppd's fsm.c: an FSM per link end, one method per event (Up, Down, Open,
// Close, Timeout, Input), one function per received packet type switching on the state, the
// restart timer and counter of section 4.6, and the negotiation of two options (MRU, which a
// peer may Nak, and Protocol-Field-Compression, which it may Reject). It reaches its world only
// through Callbacks (the link, the timer, the layer above) and reports each step to a Tracer, as
// pppd's debug log does. It imports nothing of the checker; the fields not tagged cmc:"-" are
// its state.
package lcp
