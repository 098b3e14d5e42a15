package dap

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

func TestParsePath(t *testing.T) {
	for _, c := range []struct{ path, segs string }{
		{`B`, `B`},
		{`B.routes[D].seq`, `B|routes|[D]|seq`},
		{`B.Routes["A"].Hops`, `B|Routes|["A"]|Hops`},
		{`B.m["a].b"].x`, `B|m|["a].b"]|x`},
		{`net.Pending[0].Msg.Dest`, `net|Pending|[0]|Msg|Dest`},
		{`(*S.p)`, `S|p|*`},
		{`(*(*S.pp)).x`, `S|pp|*|*|x`},
		{`S.m[{1 2}].v`, `S|m|[{1 2}]|v`},
	} {
		var names []string
		for _, s := range parsePath(c.path) {
			names = append(names, s.name)
		}
		if got := strings.Join(names, "|"); got != c.segs {
			t.Errorf("parsePath(%s) = %s, want %s", c.path, got, c.segs)
		}
		// Rebuilding the path from the segments gives it back: node paths are leaf paths' prefixes.
		p := ""
		for _, s := range parsePath(c.path) {
			p = s.extend(p)
		}
		if p != c.path {
			t.Errorf("rebuilt %s as %s", c.path, p)
		}
	}
}

func TestExprPath(t *testing.T) {
	for _, c := range []struct{ path, expr string }{
		{`B.routes[D].seq`, `B.routes["D"].seq`},
		{`B.Routes["A"].Hops`, `B.Routes["A"].Hops`},
		{`net.Pending[0].Msg`, `net.Pending[0].Msg`},
		{`node-1.x`, `$env["node-1"].x`},
		{`S.in`, `S["in"]`},
		{`(*S.p)`, `S.p`},
		{`B.routes[Dest=D].Hops`, `B.routes["Dest=D"].Hops`}, // a keyed slice's element
	} {
		if got := exprPath(c.path); got != c.expr {
			t.Errorf("exprPath(%s) = %s, want %s", c.path, got, c.expr)
		}
	}
}

func TestUnder(t *testing.T) {
	for _, c := range []struct {
		path, p string
		want    bool
	}{
		{`B.Routes["A"].Hops`, `B.Routes["A"]`, true},
		{`B.Routes["A"]`, `B.Routes["A"]`, true},
		{`B.Routes["AB"].Hops`, `B.Routes["A"`, false},
		{`B.Routesx`, `B.Routes`, false},
		{`(*S.p)`, `S.p`, true},
		{`(*(*S.p)).x`, `S.p`, true},
	} {
		if got := under(c.path, c.p); got != c.want {
			t.Errorf("under(%s, %s) = %v", c.path, c.p, got)
		}
	}
}

// TestEnv: expressions over a state read as Go does over the same values.
func TestEnv(t *testing.T) {
	leaves := []canon.Leaf{
		{Path: `B.Routes["A"].Hops`, Value: "3"},
		{Path: `B.Routes["A"].Next`, Value: `"C"`},
		{Path: `B.routes[D].seq`, Value: "7"},
		{Path: `B.byNum[3]`, Value: "true"},
		{Path: `B.byNum[5]`, Value: "false"},
		{Path: `net.Pending[0].To`, Value: "1"},
		{Path: `net.Pending[1].To`, Value: "2"},
		{Path: `S.p`, Value: "&B.Routes"},
		{Path: `S.empty`, Value: "{}"},
		{Path: `S.f`, Value: "1.5"},
		{Path: `S.state`, Value: "working"},
		{Path: `B.table[Dest=D].Hops`, Value: "2"}, // a keyed slice (canon/elements.go)
		{Path: `B.table[Dest=A].Hops`, Value: "1"},
	}
	e := newEnv(buildTree(leaves))
	progs := programs{}
	for _, c := range []struct{ expr, want string }{
		{`B.Routes["A"].Hops < 4`, "true"},
		{`B.Routes["A"].Next == "C"`, "true"},
		{`B.routes["D"].seq`, "7"},
		{`B.byNum[3] && !B.byNum[5]`, "true"},
		{`len(net.Pending)`, "2"},
		{`net.Pending[1].To + 1`, "3"},
		{`all(net.Pending, .To > 0)`, "true"},
		{`S.f * 2`, "3"},
		{`S.state == "working"`, "true"},
		{`S.p`, `"&B.Routes"`},
		{`B.Routes["Z"]?.Hops`, "nil"},
		{`B.table["Dest=D"].Hops`, "2"},
		{`len(B.table)`, "2"},
	} {
		v, err := progs.eval(c.expr, e)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := show(v); got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
	if _, err := progs.truth(`B.routes["D"].seq`, e); err == nil || !strings.Contains(err.Error(), "not true or false") {
		t.Errorf("a number as a condition: %v", err)
	}
	// A composite result leads back to its node, so the editor can expand it.
	v, _ := progs.eval(`B.Routes["A"]`, e)
	if n := e.nodeOf(v); n == nil || n.path != `B.Routes["A"]` {
		t.Errorf("nodeOf(B.Routes[A]) = %+v", n)
	}
}

func TestSummary(t *testing.T) {
	top := buildTree([]canon.Leaf{
		{Path: `B.Routes["A"].Hops`, Value: "3"},
		{Path: `B.Routes["A"].Next`, Value: `"C"`},
		{Path: `B.list[0]`, Value: "1"},
		{Path: `B.list[1]`, Value: "2"},
	})
	b := top.find("B")
	if got := b.summary(80); got != `{Routes: len 1 {"A": {Hops: 3, Next: "C"}}, list: len 2 [1, 2]}` {
		t.Errorf("summary %s", got)
	}
	if got := b.summary(5); !strings.HasSuffix(got, "…}") {
		t.Errorf("short summary %s", got)
	}
}

func TestHitMatches(t *testing.T) {
	for _, c := range []struct {
		cond string
		hits int
		want bool
	}{
		{"3", 3, true}, {"3", 4, false}, {">2", 3, true}, {">=3", 3, true}, {"<3", 3, false},
		{"<=3", 3, true}, {"%2", 4, true}, {"%2", 3, false}, {"== 1", 1, true},
	} {
		got, err := hitMatches(c.cond, c.hits)
		if err != nil || got != c.want {
			t.Errorf("hitMatches(%q, %d) = %v, %v", c.cond, c.hits, got, err)
		}
	}
	for _, bad := range []string{"x", ">", "!3", ""} {
		if _, err := hitMatches(bad, 1); err == nil {
			t.Errorf("hitMatches(%q) accepted", bad)
		}
	}
}

func TestMsgHead(t *testing.T) {
	for in, want := range map[string]string{
		"RERR{D:3}":                           "RERR",
		"{Type:RREQ Dest:3}":                  "RREQ",
		"AD{A seq 1 hops 0}":                  "AD",
		"ping":                                "ping",
		"{Kind:a-very-long-kind-name-here-x}": "a-very-long-kind-name-he…",
	} {
		if got := msgHead(in); got != want {
			t.Errorf("msgHead(%q) = %q, want %q", in, got, want)
		}
	}
}
