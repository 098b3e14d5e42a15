package etcdraft

import (
	"fmt"
	"slices"

	"github.com/cmc-go/cmc"
)

// The safety properties of the Raft paper (Figure 3), checked on every state.
func invariants(m *cmc.Model, nodes []*Node, hist *History) {
	m.Invariant("ElectionSafety", func() error {
		for t, ids := range hist.Leaders {
			if len(ids) > 1 {
				return fmt.Errorf("at most one leader can be elected in a given term: term %d had leaders %v", t, ids)
			}
		}
		return nil
	})
	m.Invariant("LogMatching", func() error {
		logs := make([][]Entry, len(nodes)) // each node's log once, not once per pair
		for i, n := range nodes {
			logs[i] = n.Log()
		}
		for i, a := range nodes {
			for j, b := range nodes[i+1:] {
				if err := logMatching(a, b, logs[i], logs[i+1+j]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	m.Invariant("LeaderCompleteness", func() error {
		for _, l := range nodes {
			if !l.Leader() {
				continue
			}
			log, term := l.Log(), l.Term()
			for _, n := range nodes {
				for _, e := range n.Applied {
					if e.Term >= term {
						continue
					}
					if i := slices.IndexFunc(log, func(x Entry) bool { return x.Index == e.Index }); i < 0 || log[i] != e {
						return fmt.Errorf("if a log entry is committed in a given term, that entry will be present in the logs of the leaders for all higher-numbered terms: n%d applied %d:%q (term %d), but the leader n%d of term %d does not have it", n.ID, e.Index, e.Data, e.Term, l.ID, term)
					}
				}
			}
		}
		return nil
	})
	m.Invariant("StateMachineSafety", func() error {
		for i, a := range nodes {
			for _, b := range nodes[i+1:] {
				for _, x := range a.Applied {
					for _, y := range b.Applied {
						if x.Index == y.Index && x != y {
							return fmt.Errorf("if a server has applied a log entry at a given index, no other server will ever apply a different log entry for the same index: n%d applied %q at %d, n%d applied %q", a.ID, x.Data, x.Index, b.ID, y.Data)
						}
					}
				}
			}
		}
		return nil
	})
}

// logMatching: if two logs contain an entry with the same index and term, the logs are identical
// in all entries up through that index. la and lb are a's and b's logs.
func logMatching(a, b *Node, la, lb []Entry) error {
	at := func(log []Entry, i uint64) (Entry, bool) {
		k := slices.IndexFunc(log, func(e Entry) bool { return e.Index == i })
		if k < 0 {
			return Entry{}, false
		}
		return log[k], true
	}
	for _, x := range la {
		y, ok := at(lb, x.Index)
		if !ok || y.Term != x.Term {
			continue
		}
		for _, p := range la {
			if p.Index > x.Index {
				break
			}
			if q, ok := at(lb, p.Index); ok && q != p {
				return fmt.Errorf("if two logs contain an entry with the same index and term, then the logs are identical in all entries up through the given index: n%d and n%d agree at %d (term %d) but differ at %d", a.ID, b.ID, x.Index, x.Term, p.Index)
			}
		}
	}
	return nil
}
