package tracefmt

import (
	"errors"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

func TestWrite(t *testing.T) {
	tr := &engine.Trace{
		Model: "aodv",
		Init:  append([]canon.Leaf{{Path: "net.msgs[0].from", Value: "A"}}, make([]canon.Leaf, 56)...),
		Steps: []engine.Step{
			{Proc: "B", Event: "timeout", Site: "/home/dev/aodv/timers.go:180",
				Choices: []engine.Choice{{Value: 1, N: 2, Site: "/home/dev/aodv/router.go:112"}, {Value: 0, N: 3}},
				Notes:   []engine.Note{{Kind: "send", From: "A", To: "B", Msg: "RREQ{orig=A dest=D seq=2}"}, {Kind: "tick"}},
				Changes: []canon.Change{
					{Path: "B.routes[D].seq", Kind: "changed", Old: "3", New: "4"},
					{Path: "B.routes[D].hops", Kind: "added", New: "2"},
					{Path: "net.msgs[0].kind", Kind: "removed", Old: `"RREQ"`},
					{Path: "net.msgs[1].kind", Kind: "removed", Old: `"RREP"`},
					{Path: "net.msgs[1].to", Kind: "removed", Old: "C"},
				}},
		},
	}
	for range 9 {
		tr.Steps = append(tr.Steps, engine.Step{Proc: "node10", Event: "recv", Site: `C:\src\aodv\rreq.go:40`,
			Notes:   []engine.Note{{Kind: "deliver", From: "C"}, {Kind: "drop", To: "D", Msg: "RERR"}},
			Changes: []canon.Change{{Path: "x", Kind: "renamed", Old: "a", New: "b"}}})
	}
	var b strings.Builder
	if err := Write(&b, tr); err != nil {
		t.Fatal(err)
	}
	want := ` 0  initial state: 57 values
 1  B       timeout  timers.go:180
      choose 1/2 @ router.go:112
      choose 0/3
      send A->B RREQ{orig=A dest=D seq=2}
      tick
      ~ B.routes[D].seq   3 -> 4
      + B.routes[D].hops  2
      - net.msgs[0].kind  "RREQ"
      - net.msgs[1]       {kind: "RREP", to: C}
 2  node10  recv     rreq.go:40
      deliver C
      drop ->D RERR
      ? x  a -> b (renamed)
`
	if got := b.String(); !strings.HasPrefix(got, want) {
		t.Errorf("got\n%s\nwant (a prefix)\n%s", got, want)
	}
	if !strings.Contains(b.String(), "\n10  node10  recv     rreq.go:40\n") {
		t.Errorf("step 10 not aligned:\n%s", b.String())
	}
	if err := Write(failing{}, tr); err == nil {
		t.Error("a write error was not returned")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }
