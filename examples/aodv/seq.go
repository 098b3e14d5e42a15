package aodv

// SeqNewer reports whether sequence number a is newer than b. RFC 3561 section 6.1 compares
// sequence numbers as a signed 32-bit difference so that they may wrap around; under the
// checker's small bounds this is the plain a > b.
func SeqNewer(a, b uint32) bool {
	return int32(a-b) > 0
}
