package dap

import (
	"fmt"
	"strconv"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/tracefmt"
	"github.com/google/go-dap"
)

// The Connections scope: the conversations with real peers (env.Peer, docs/iocache.md) up to the
// frame's step, read from the steps' notes by tracefmt.Conversations, as trace show prints them.
// One variable per connection ("redis/web": wrote 48 B, read 12 B), its exchanges as children
// ("#1 step 2 ->": the bytes, quoted).

// conversationsAt are the conversations after the steps done at p (inside a step, the steps
// before it).
func (s *Session) conversationsAt(p engine.Cursor) []tracefmt.Conversation {
	upto := p.Step
	if p.Inside() {
		upto--
	}
	return tracefmt.Conversations(s.tr.t, upto)
}

func (s *Session) connectionVars(p engine.Cursor) []dap.Variable {
	cs := s.conversationsAt(p)
	out := make([]dap.Variable, len(cs))
	for i, c := range cs {
		n := &node{}
		for j, x := range c.Exchanges {
			n.kids = append(n.kids, &node{name: fmt.Sprintf("#%d step %d %s", j+1, x.Step, x.Arrow()),
				leaf: true, value: strconv.Quote(x.Data)})
		}
		out[i] = dap.Variable{Name: c.Conn, Value: c.String(), NamedVariables: len(n.kids),
			VariablesReference: s.handles.add(handle{kind: hNode, pos: p, node: n})}
	}
	return out
}
