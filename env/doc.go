// Package env is the reusable environment of checked systems: what the protocol code talks to
// instead of the real world. Each piece is ordinary state (captured and hashed like a process) plus
// operations that make their nondeterminism explicit with cmc.Choose, as CMC's environment models
// do: an unordered bounded network that may lose and duplicate messages, timers that fire in any
// order, failures injected at interfaces, and reboots.
package env
