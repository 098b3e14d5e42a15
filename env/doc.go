// Package env is the reusable environment of checked systems: what the protocol code talks to
// instead of the real world. Each piece is ordinary state (captured and hashed like a process) plus
// operations that make their nondeterminism explicit with cmc.Choose, as CMC's environment models
// do: an unordered bounded network that may lose and duplicate messages, timers that fire in any
// order, failures injected at interfaces, and reboots. A Peer stands for a real process the
// program talks to (a database, a server): its state is the program's positions in the
// conversations, and an I/O cache outside the state answers what it has seen and reaches the
// real peer only beyond it (docs/iocache.md).
package env
