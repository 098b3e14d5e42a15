package views

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

type route struct {
	Hops uint8
	Next string
}

type hdr struct{ Seq, TTL int }

type node struct {
	Name   string
	Routes map[string]*route
	Peer   *node
	Hdr    hdr
	Note   string
}

// twoNodes is A and B, each with routes, B's Peer aliasing A.
func twoNodes() *canon.Graph {
	a := &node{Name: "A", Routes: map[string]*route{"B": {1, "B"}}, Note: `say "hi" <b> & \n`}
	b := &node{Name: "B", Routes: map[string]*route{"A": {1, "A"}, "C": {2, "A"}}, Peer: a}
	return canon.NewGraph([]canon.Root{{Name: "A", V: reflect.ValueOf(a)}, {Name: "B", V: reflect.ValueOf(b)}})
}

var nodeIDs = regexp.MustCompile(`(?m)^  (o\d+|more\d+) \[`)

func nodesOf(dot string) []string {
	var out []string
	for _, m := range nodeIDs.FindAllStringSubmatch(dot, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestDOTWholeSystem(t *testing.T) {
	g := twoNodes()
	g.Mark([]canon.Change{{Path: `B.Routes["C"].Hops`, Kind: "changed", Old: "1", New: "2"}})
	v := Heap(g, GraphOptions{})
	// A, B, A.Routes, B.Routes, A.Routes["B"], B.Routes["A"], B.Routes["C"]: Peer aliases A.
	if got := strings.Join(nodesOf(v.DOT), " "); got != "o1 o2 o3 o4 o5 o6 o7" {
		t.Fatalf("nodes %s\n%s", got, v.DOT)
	}
	for _, want := range []string{
		`o2:p2:e -> o1 [label="Peer"];`, // the alias is an edge back to A, from B's Peer row
		`o4:p1:e -> o7 [label="[\"C\"]"];`,
		`<TD ALIGN="LEFT">Hdr.Seq</TD><TD ALIGN="LEFT">0</TD>`, // inline struct fields are rows
		`o7 [id="obj-7", class="object changed"`,
		`o1 [id="obj-1", class="object"`,
		// The string is quoted by canon and escaped for the HTML label; no raw markup survives.
		`&quot;say \&quot;hi\&quot; &lt;b&gt; &amp; \\n&quot;`,
	} {
		if !strings.Contains(v.DOT, want) {
			t.Errorf("DOT lacks %s\n%s", want, v.DOT)
		}
	}
	if v.Objects != 7 || v.Shown != 7 || v.Folded != 0 || v.Changed != 3 || fmt.Sprint(v.Roots) != "[A B]" {
		t.Errorf("view %+v", v)
	}
}

func TestDOTRootSelector(t *testing.T) {
	g := twoNodes()
	// From A nothing of B's is reachable.
	if got := strings.Join(nodesOf(DOT(g, GraphOptions{Root: "A"})), " "); got != "o1 o3 o5" {
		t.Errorf("root A: %s", got)
	}
	// From B, A is reachable through Peer.
	if got := strings.Join(nodesOf(DOT(g, GraphOptions{Root: "B"})), " "); got != "o2 o4 o1 o6 o7 o3 o5" {
		t.Errorf("root B: %s", got)
	}
	if v := Heap(g, GraphOptions{Root: "Z"}); v.Shown != 0 || v.Note == "" {
		t.Errorf("unknown root: %+v", v)
	}
}

func TestDOTFilter(t *testing.T) {
	g := twoNodes()
	// The matching object and the objects on the way to it.
	if got := strings.Join(nodesOf(DOT(g, GraphOptions{Filter: `routes["c"]`})), " "); got != "o2 o4 o7" {
		t.Errorf("filter: %s", got)
	}
	if v := Heap(g, GraphOptions{Filter: "nothing"}); v.Shown != 0 || !strings.Contains(v.Note, "nothing") {
		t.Errorf("filter matching nothing: %+v", v)
	}
}

// chain is a linked list of n cells under one root.
type cell struct {
	V    int
	Next *cell
}

func chain(n int) *canon.Graph {
	var head *cell
	for i := n; i > 0; i-- {
		head = &cell{V: i, Next: head}
	}
	return canon.NewGraph([]canon.Root{{Name: "L", V: reflect.ValueOf(head)}})
}

func TestDOTCollapse(t *testing.T) {
	g := chain(10)
	v := Heap(g, GraphOptions{MaxDepth: 3})
	if got := strings.Join(nodesOf(v.DOT), " "); got != "o1 o2 o3 o4 more4" {
		t.Fatalf("depth 3: %s", got)
	}
	if v.Folded != 6 || !strings.Contains(v.DOT, `more4 [id="more-4", class="more"`) || !strings.Contains(v.DOT, `label="+6 more"`) || !strings.Contains(v.DOT, "o4 -> more4") {
		t.Errorf("fold: %+v\n%s", v, v.DOT)
	}
	// Expanding the fold shows the next object and folds the rest under it.
	if got := strings.Join(nodesOf(DOT(g, GraphOptions{MaxDepth: 3, Expand: []int{4}})), " "); got != "o1 o2 o3 o4 o5 more5" {
		t.Errorf("expanded: %s", got)
	}
	if got := strings.Join(nodesOf(DOT(g, GraphOptions{MaxNodes: 2, MaxDepth: -1})), " "); got != "o1 o2 more2" {
		t.Errorf("2 nodes: %s", got)
	}
	if got := len(nodesOf(DOT(g, GraphOptions{MaxDepth: -1}))); got != 10 {
		t.Errorf("no limit: %d nodes", got)
	}
}

func TestDOTManyFields(t *testing.T) {
	m := map[int]*cell{}
	for i := range 30 {
		m[i] = &cell{V: i}
	}
	g := canon.NewGraph([]canon.Root{{Name: "M", V: reflect.ValueOf(&m)}})
	dot := DOT(g, GraphOptions{MaxFields: 5, MaxDepth: -1, MaxNodes: -1})
	if !strings.Contains(dot, "… 25 more fields") {
		t.Errorf("no fields cut:\n%s", dot)
	}
	// Edges of cut rows leave the node, not a port that is not drawn.
	if !strings.Contains(dot, `o2:p4:e -> o7`) || !strings.Contains(dot, `o2 -> o8 [label="[5]"]`) {
		t.Errorf("edges of cut rows:\n%s", dot)
	}
}

func TestEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`a"b\c`:   `a\"b\\c`,
		"x\ny\tz": "x y z",
		`\N \l`:   `\\N \\l`,
	} {
		if got := escapeDOT(in); got != want {
			t.Errorf("escapeDOT(%q) = %q, want %q", in, got, want)
		}
	}
	if got := html("<a href='x'>&\x00"); got != "&lt;a href=&#39;x&#39;&gt;&amp;&#xFFFD;" {
		t.Errorf("html: %s", got)
	}
	if got := shortType("*env.Network[github.com/cmc-go/cmc/test/views/model.Msg]"); got != "*env.Network[model.Msg]" {
		t.Errorf("shortType: %s", got)
	}
	if got := clip("αβγδε", 3); got != "αβ…" {
		t.Errorf("clip: %s", got)
	}
}
