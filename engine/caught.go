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
	after        after
}

// A handler that changes a larger component (a set of messages, a struct with a slice) mostly
// changes it the way it did the last time it ran on the same value: the same element appended in
// the same array. So the memory of the value the run started from, as the handler left it, names
// the value it made: a capture hashes that memory (the live footprint's regions,
// canon.Footprint.Hash) and looks the hash up among the values captures encoded from it before;
// the footprint of the one found confirms it (Same), as a kept value's does. TwoPhase RM=9: 98.9%
// of the message set's 15,970,326 encodings were of a value met this way before.

// afterSize is how many values a component's after table holds, each of at most afterBytes of
// memory (its footprint holds a copy, and keeps the objects alive): at most 1 MiB a component. A
// component with a larger value stops being looked up.
const (
	afterSize  = 1 << 10
	afterBytes = 512
)

// afterValue is a value a capture encoded, under the hash of the memory it was made in; decoded
// says it was what decoding its bytes gives (canon.Encoder.AsDecoded).
type afterValue struct {
	liveValue
	key     uint64
	decoded bool
}

// after is one component's table of values by the memory they were made in.
type after struct {
	table        *[afterSize]afterValue // made at the first value kept
	key          uint64                 // the memory's hash in the capture under way (0: none)
	hits, misses int
	off          bool // its values seldom come back
}

// find returns the value the live root holds, found by the hash of the memory lv's footprint
// covers, if one was kept; otherwise it notes the hash for store. lv is the live value of the
// component the capture is of, which Same just found changed. The table must be on (not off).
func (a *after) find(lv *liveValue) *afterValue {
	a.key = 0
	if lv.id == dirty {
		return nil
	}
	return a.lookup(lv)
}

// lookup is find's part that hashes and looks, apart so that find inlines.
func (a *after) lookup(lv *liveValue) *afterValue {
	a.key = lv.fp.Hash()
	if a.key == 0 {
		a.stop() // a value with maps (etcd raft's nodes), or one that met a global
		return nil
	}
	if a.table == nil {
		return nil
	}
	if v := &a.table[a.key%afterSize]; v.key == a.key && v.fp.Same() {
		a.hits++
		return v
	}
	return nil
}

// store puts the value the encoder just emitted, pool entry id, in the table under the hash find
// noted (a.key, not 0), with its footprint.
func (a *after) store(enc *canon.Encoder, id uint32, decoded bool) {
	a.misses++
	// Off when it finds under a fifth of the values it looks up, or under half after a while:
	// breadth-first, TwoPhase's set finds about half at first, while a level's states come from
	// few parents, and six in seven later. A miss costs a walk to record the value's footprint.
	if a.misses > 256 && (a.hits < a.misses/4 || a.misses > 4096 && a.hits < a.misses) {
		a.stop()
		return
	}
	if a.table == nil {
		a.table = new([afterSize]afterValue)
	}
	v := &a.table[a.key%afterSize]
	if !enc.Footprint(&v.fp) {
		v.key = 0
		return
	}
	if v.fp.Size() > afterBytes {
		a.stop()
		return
	}
	v.id, v.key, v.decoded = id, a.key, decoded
}

// stop turns the table off for good, and drops it: its values' objects need not stay alive.
func (a *after) stop() { a.off, a.table, a.key = true, nil, 0 }

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
