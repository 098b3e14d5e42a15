package canon

// seenTable numbers the objects of one capture by address. A capture of a small component meets a
// few objects, and a Go map cost more to clear for every capture than the capture itself: entries
// here carry the capture's generation, so clearing is one increment.
type seenTable struct {
	slots []seenSlot
	n     int
	gen   uint32
}

type seenSlot struct {
	addr uintptr
	num  int32
	gen  uint32
}

// reset forgets every address.
func (t *seenTable) reset() {
	t.gen++
	t.n = 0
	if t.gen == 0 { // wrapped: old entries could look current
		clear(t.slots)
		t.gen = 1
	}
	if t.slots == nil {
		t.slots = make([]seenSlot, 64)
	}
}

func (t *seenTable) get(addr uintptr) (int, bool) {
	if t.slots == nil {
		return 0, false
	}
	mask := uintptr(len(t.slots) - 1)
	for i := hashAddr(addr) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen {
			return 0, false
		}
		if s.addr == addr {
			return int(s.num), true
		}
	}
}

// put records addr as object num; addr must not be recorded yet.
func (t *seenTable) put(addr uintptr, num int) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := uintptr(len(t.slots) - 1)
	i := hashAddr(addr) & mask
	for t.slots[i].gen == t.gen {
		i = (i + 1) & mask
	}
	t.slots[i] = seenSlot{addr: addr, num: int32(num), gen: t.gen}
	t.n++
}

func (t *seenTable) grow() {
	old := t.slots
	t.slots = make([]seenSlot, 2*len(old))
	t.n = 0
	for _, s := range old {
		if s.gen == t.gen {
			t.put(s.addr, int(s.num))
		}
	}
}

// hashAddr spreads addresses, which are aligned and close together, over the table.
func hashAddr(a uintptr) uintptr {
	h := uint64(a) * 0x9e3779b97f4a7c15
	return uintptr(h >> 32)
}
