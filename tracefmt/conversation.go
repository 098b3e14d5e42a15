package tracefmt

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/env"
)

// A Conversation is what was said on one connection to a real peer (env.Peer), read from the
// notes of a trace's steps: trace show prints it, and the debugger's Connections scope shows it
// at the current step.
type Conversation struct {
	Conn      string     `json:"conn"`  // "redis/web"
	Open      bool       `json:"open"`  // open after the last step read
	Wrote     int        `json:"wrote"` // bytes
	Read      int        `json:"read"`
	Exchanges []Exchange `json:"exchanges"`
}

// An Exchange is bytes in one direction, consecutive ones joined.
type Exchange struct {
	Step int    `json:"step"`           // the step that began it
	Sent bool   `json:"sent,omitempty"` // the program wrote Data; else the peer sent it
	End  bool   `json:"end,omitempty"`  // the peer ended the connection; Data says why
	Data string `json:"data"`           // the bytes
}

// Conversations are the conversations of steps 1..upto of t, in the order they began.
func Conversations(t *engine.Trace, upto int) []Conversation {
	var out []Conversation
	index := map[string]int{}
	at := func(conn string) *Conversation {
		i, ok := index[conn]
		if !ok {
			i = len(out)
			index[conn] = i
			out = append(out, Conversation{Conn: conn})
		}
		return &out[i]
	}
	for i := 0; i < upto && i < len(t.Steps); i++ {
		for _, n := range t.Steps[i].Notes {
			data, _ := strconv.Unquote(n.Msg)
			var c *Conversation
			x := Exchange{Step: i + 1, Data: data}
			switch n.Kind {
			case env.NoteOpen:
				at(n.To).Open = true
				continue
			case env.NoteClose:
				at(n.To).Open = false
				continue
			case env.NoteWrite:
				c, x.Sent = at(n.To), true
				c.Wrote += len(data)
			case env.NoteRead:
				c = at(n.From)
				c.Read += len(data)
			case env.NoteEnd:
				c, x.End = at(n.From), true
			default:
				continue
			}
			if l := len(c.Exchanges); l > 0 && !x.End && !c.Exchanges[l-1].End && c.Exchanges[l-1].Sent == x.Sent {
				c.Exchanges[l-1].Data += x.Data
				continue
			}
			c.Exchanges = append(c.Exchanges, x)
		}
	}
	return out
}

// Arrow is an exchange's direction as printed: "->" sent, "<-" received, "end".
func (x Exchange) Arrow() string {
	switch {
	case x.Sent:
		return "->"
	case x.End:
		return "end"
	}
	return "<-"
}

// WriteConversations prints the conversations of the whole trace, one block per connection, one
// line per exchange with the step that began it:
//
//	redis/web (closed): wrote 48 B, read 12 B
//	  1  -> "*2\r\n$4\r\nINCR\r\n$4\r\nhits\r\n"
//	  1  <- ":1\r\n"
//
// Nothing when the trace has none.
func WriteConversations(w io.Writer, t *engine.Trace) error {
	p := &printer{w: w}
	cs := Conversations(t, len(t.Steps))
	if len(cs) > 0 {
		p.printf("\nconversations with real peers:\n")
	}
	num := len(strconv.Itoa(len(t.Steps)))
	for _, c := range cs {
		state := "closed"
		if c.Open {
			state = "open"
		}
		p.printf("%s (%s): wrote %d B, read %d B\n", c.Conn, state, c.Wrote, c.Read)
		for _, x := range c.Exchanges {
			p.printf("  %*d  %-3s %s\n", num, x.Step, x.Arrow(), strconv.Quote(x.Data))
		}
	}
	return p.err
}

// String is a conversation on one line, for a debugger's value column.
func (c Conversation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrote %d B, read %d B", c.Wrote, c.Read)
	if !c.Open {
		b.WriteString(", closed")
	}
	return b.String()
}
