// Package ppp checks an implementation of PPP's Link Control Protocol option negotiation (package
// lcp, written from RFC 1661 as protocol code) against the RFC's own state transition table
// (package rfc1661), by refinement: every step either end takes must be a step the table allows.
// It is the first case study of Alur and Wang, "Verifying network protocol implementations by
// symbolic refinement checking" (CAV 2001), who found that pppd 2.4.0, on a Terminate-Ack in
// Opened, sends a Configure-Request but stays in Opened; lcp.Config.PPPD240RTA reproduces that
// code, so the same model shows the bug and shows it gone. See docs/refinement.md.
package ppp
