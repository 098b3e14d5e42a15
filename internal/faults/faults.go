// Package faults switches off, for tests only, the fixes that make capture faithful, so a test can
// show that the engine's self-check finds each fault on its own. Nothing outside tests sets them.
package faults

// LooseCapacity makes canon restore a slice with whatever capacity the allocator rounds its length
// up to, as it did before capacity was state: appends that copy in Go then write in place.
var LooseCapacity bool
