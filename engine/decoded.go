package engine

// keepDecoded is how many values a machine keeps for each component besides its live one. A
// search moves between states that share most components' values, so a component often needs
// again a value it held a few states ago: etcd raft's first 30,000 states breadth-first decode
// their nodes 40,515 times with none kept, 10,397 times with 8, 6,561 with 16, 2,768 with 64.
// Each kept value holds its objects and a copy of them, which the collector marks, and finding
// one is a walk along the kept ones: a component of a few bytes (TwoPhase's) decodes for about
// what looking through 64 costs, so only one whose bytes are keepMoreFrom or more (an etcd raft
// node's are about 520) keeps keepDecodedLarge.
const (
	keepDecoded      = 16
	keepDecodedLarge = 64
	keepMoreFrom     = 256
)

// decoded is one component's values decoded before the live one. Decoding rebuilds every object
// below the root afresh, so each value's objects are still there, apart from the live value's;
// restoring its footprint makes the root point to them again and writes back whatever a handler
// changed in them since. Handlers only reach the live value, and a footprint rewrites every
// object it covers, so the values need not stay as they were.
type decoded struct {
	values []liveValue
	next   int  // the entry the next decode replaces: the oldest
	large  bool // a value of keepMoreFrom bytes or more was decoded: keep keepDecodedLarge
}

// take swaps the live value lv with the kept value of pool entry id, and reports whether there was
// one.
func (d *decoded) take(lv *liveValue, id uint32) bool {
	for k := range d.values {
		if d.values[k].id == id {
			d.values[k], *lv = *lv, d.values[k]
			return true
		}
	}
	return false
}

// keep puts the live value lv among the kept ones in place of the oldest before a decode replaces
// it; lv gets that entry's footprint, whose copies the next recording reuses.
func (d *decoded) keep(lv *liveValue) {
	if lv.id == dirty {
		return
	}
	limit := keepDecoded
	if d.large {
		limit = keepDecodedLarge
	}
	if len(d.values) < limit {
		d.values = append(d.values, *lv)
		*lv = liveValue{id: dirty}
		return
	}
	d.values[d.next], *lv = *lv, d.values[d.next]
	d.next = (d.next + 1) % limit
	lv.id = dirty
}
