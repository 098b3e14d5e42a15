// Package faults switches off, for tests only, the fixes that make capture faithful, so a test can
// show that the engine's self-check finds each fault on its own. Nothing outside tests sets them.
package faults

// LooseCapacity makes canon restore a slice with whatever capacity the allocator rounds its length
// up to, as it did before capacity was state: appends that copy in Go then write in place.
var LooseCapacity bool

// NoGlobals makes canon capture a pointer to a package-level value as a copy, as it did before
// globals kept their identity: a restored sentinel error is then a different error.
var NoGlobals bool

// NoHandles makes canon capture a unique.Handle as a pointer to a copy, as it did before handles
// were restored to the interned value: == between restored netip.Addrs then fails.
var NoHandles bool
