package views

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
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
	v := Heap(g, GraphOptions{}, nil)
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
	if v := Heap(g, GraphOptions{Root: "Z"}, nil); v.Shown != 0 || v.Note == "" {
		t.Errorf("unknown root: %+v", v)
	}
}

func TestDOTFilter(t *testing.T) {
	g := twoNodes()
	// The matching object and the objects on the way to it.
	if got := strings.Join(nodesOf(DOT(g, GraphOptions{Filter: `routes["c"]`})), " "); got != "o2 o4 o7" {
		t.Errorf("filter: %s", got)
	}
	if v := Heap(g, GraphOptions{Filter: "nothing"}, nil); v.Shown != 0 || !strings.Contains(v.Note, "nothing") {
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
	v := Heap(g, GraphOptions{MaxDepth: 3}, nil)
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

// The fields a step changed are marked row by row, not just their objects: the changed scalar
// says what it was, and the reference that leads to it says that something below it changed.
func TestHeapMarksChangedFields(t *testing.T) {
	g := twoNodes()
	st := &engine.Step{Proc: "B", Changes: []canon.Change{{Path: `B.Routes["C"].Hops`, Kind: "changed", Old: "1", New: "2"}}}
	g.Mark(st.Changes)
	v := Heap(g, GraphOptions{}, st)
	dot := v.DOT
	for _, want := range []string{
		// B.Routes["C"] is o7; Hops is its first row.
		`<TR><TD ALIGN="LEFT" BGCOLOR="#ffe9a8" ID="chg-7-0-n" TOOLTIP="changed at this step: was 1"><B>Hops</B></TD><TD ALIGN="LEFT" BGCOLOR="#ffe9a8" ID="chg-7-0-v" TOOLTIP="changed at this step: was 1"><B>2</B></TD></TR>`,
		// B's Routes row and B.Routes' ["C"] row lead there.
		`ID="chg-2-1-n" TOOLTIP="1 changes below at this step"><B>Routes</B>`,
		`ID="chg-4-1-n" TOOLTIP="1 changes below at this step"><B>[&quot;C&quot;]</B>`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %s\n%s", want, dot)
		}
	}
	// Nothing else is marked: Next of the same route, A's rows and B.Routes["A"] did not change.
	if n := strings.Count(dot, `ID="chg-`); n != 6 {
		t.Errorf("%d marked cells, want 6 (three rows)\n%s", n, dot)
	}
	// The page opens on the route whose Hops changed.
	if v.Focus != 7 {
		t.Errorf("focus %d, want 7", v.Focus)
	}
	// A changed field past the rows shown is shown anyway.
	if dot := Heap(g, GraphOptions{MaxFields: 1}, st).DOT; !strings.Contains(dot, `ID="chg-4-1-n"`) || !strings.Contains(dot, "… 1 more fields") {
		t.Errorf("with one row per object, B.Routes lacks its changed row or the fold\n%s", dot)
	}
}

// The page opens on the stepping process's changes, even where another process changed more.
func TestHeapFocusesOnTheStep(t *testing.T) {
	g := twoNodes()
	changes := []canon.Change{
		{Path: `A.Name`, Kind: "changed", Old: `"X"`, New: `"A"`},
		{Path: `B.Routes["A"].Hops`, Kind: "changed", Old: "2", New: "1"},
		{Path: `B.Routes["A"].Next`, Kind: "changed", Old: `"B"`, New: `"A"`},
	}
	g.Mark(changes)
	if v := Heap(g, GraphOptions{}, &engine.Step{Proc: "A", Changes: changes}); v.Focus != 1 {
		t.Errorf("A's step: focus %d, want 1 (A)", v.Focus)
	}
	if v := Heap(g, GraphOptions{}, &engine.Step{Proc: "C", Changes: changes}); v.Focus != 6 {
		t.Errorf("C's step: focus %d, want 6 (B.Routes[\"A\"], the most changes)", v.Focus)
	}
	if v := Heap(g, GraphOptions{}, nil); v.Focus != 0 {
		t.Errorf("the initial state: focus %d, want 0", v.Focus)
	}
}

// A long field name keeps its end, the field's own name.
func TestClipHead(t *testing.T) {
	if got := clipHead(`[A->* [B C D] RREQ{id 1 orig B seq 1 dest D}].Hops`, 20); got != "…seq 1 dest D}].Hops" {
		t.Errorf("clipHead = %q", got)
	}
	if got := clipHead("Hops", 20); got != "Hops" {
		t.Errorf("clipHead = %q", got)
	}
}
