package engine

import "github.com/cmc-go/cmc/canon"

// A handler often sets a small component to a value it held a few captures ago: a resource
// manager's state back to "prepared", a flag to false. When a component's value is its root
// object alone (nothing it points to but strings, canon.Footprint.Alone), its memory says which
// value it is: a capture compares the root with the values it last encoded, whose footprints
// keep their strings alive, and takes the id of the one it holds without encoding it. Values a
// handler sets are not those decoding gives (a string constant and a decoded string are the same
// text at different addresses), so these are the values captures met, not the decoded ones
// (decoded.go).

// keepCaught is how many values a component's captures keep.
const keepCaught = 4

// A caughtValue is a value kept, with the first word of its memory (canon.Footprint.Lead).
type caughtValue struct {
	liveValue
	lead uint64
}

// caught is one component's values captures encoded lately.
type caught struct {
	values [keepCaught]caughtValue
	n      int // values in use
	next   int // the one the next value replaces
	// hits and misses count the captures that found the value among those kept, and those that
	// did not; a component whose values seldom come back (a counter) stops being compared.
	hits, misses int
	off          bool // not a root alone, or its values seldom come back
}

// same returns the kept value the live root holds, if any.
func (c *caught) same() *caughtValue {
	if c.off || c.n == 0 {
		return nil
	}
	_, now := c.values[0].fp.Lead() // every value kept is of the same root
	for k := range c.n {
		if v := &c.values[k]; v.lead == now && v.fp.Same() {
			c.hits++
			return v
		}
	}
	return nil
}

// add keeps the value the encoder just emitted as pool entry id, which decoding gives back
// (canon.Encoder.AsDecoded).
func (c *caught) add(enc *canon.Encoder, id uint32) {
	if c.off {
		return
	}
	c.misses++
	v := &c.values[c.next]
	if !enc.Footprint(&v.fp) || !v.fp.Alone() || c.misses > 64 && c.misses > c.hits {
		c.off, c.n = true, 0
		c.values = [keepCaught]caughtValue{} // their objects and strings need not stay alive
		return
	}
	v.id = id
	v.lead, _ = v.fp.Lead()
	c.next = (c.next + 1) % keepCaught
	c.n = min(c.n+1, keepCaught)
}
