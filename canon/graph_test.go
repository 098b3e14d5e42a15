package canon_test

//lint:file-ignore U1000 the test types' unexported fields are read by canon through reflection, never by name

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/canon"
)

type Route struct {
	hops uint8
	next string
}

type RMsg struct {
	From, To string
	Hops     uint8
}

type router struct {
	self   string
	routes map[string]*Route
	queue  []RMsg
	seen   []string `cmc:"set"`
	log    []string `cmc:"-"`
}

func newRouter() *router {
	return &router{
		self: "B",
		routes: map[string]*Route{
			"D": {hops: 2, next: "C"},
			"C": {hops: 1, next: "C"},
		},
		queue: []RMsg{{From: "B", To: "C", Hops: 0}},
		seen:  []string{"x", "a"},
		log:   []string{"not state"},
	}
}

func graphOf(r *router) *canon.Graph {
	return canon.NewGraph([]canon.Root{{Name: "B", V: reflect.ValueOf(r)}})
}

func TestGraphObjects(t *testing.T) {
	g := graphOf(newRouter())
	type obj struct {
		ID               int
		Root, Type, Path string
	}
	var got []obj
	for _, o := range g.Objects {
		got = append(got, obj{o.ID, o.Root, o.Type, o.Path})
	}
	// Breadth-first: the root, then what its fields reach in field order, then map entries in key order.
	want := []obj{
		{1, "B", "*canon_test.router", "B"},
		{2, "", "map[string]*canon_test.Route", "B.routes"},
		{3, "", "[]canon_test.RMsg", "B.queue"},
		{4, "", "[]string", "B.seen"},
		{5, "", "*canon_test.Route", `B.routes["C"]`},
		{6, "", "*canon_test.Route", `B.routes["D"]`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("objects (-want +got):\n%s", diff)
	}

	root := g.Objects[0]
	var names []string
	for _, f := range root.Fields {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"self", "routes", "queue", "seen"}) {
		t.Errorf("root fields %v: the cmc:\"-\" field must not show", names)
	}
	if f := root.Fields[1]; f.Ref != 2 || f.Scalar != "len 2" {
		t.Errorf("routes field %+v, want a reference to object 2", f)
	}
	routes := g.Objects[1]
	if len(routes.Fields) != 2 || routes.Fields[0].Name != `["C"]` || routes.Fields[0].Ref != 5 || routes.Fields[1].Ref != 6 {
		t.Errorf("map entries %+v", routes.Fields)
	}
	if s := g.Objects[3].Fields; s[0].Scalar != `"a"` || s[1].Scalar != `"x"` {
		t.Errorf("set elements %+v, want canonical order", s)
	}
}

func leafMap(ls []canon.Leaf) map[string]string {
	m := map[string]string{}
	for _, l := range ls {
		m[l.Path] = l.Value
	}
	return m
}

func TestLeaves(t *testing.T) {
	got := graphOf(newRouter()).Leaves()
	want := []canon.Leaf{
		{`B.self`, `"B"`},
		{`B.routes["C"].hops`, `1`},
		{`B.routes["C"].next`, `"C"`},
		{`B.routes["D"].hops`, `2`},
		{`B.routes["D"].next`, `"C"`},
		{`B.queue[0].From`, `"B"`},
		{`B.queue[0].To`, `"C"`},
		{`B.queue[0].Hops`, `0`},
		{`B.seen["a"]`, `"a"`}, // a set's elements are named by value (elements.go)
		{`B.seen["x"]`, `"x"`},
	}
	if diff := cmp.Diff(leafMap(want), leafMap(got)); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}

	// A second path to an object is a leaf naming the first.
	r := newRouter()
	r.routes["E"] = r.routes["D"]
	if v := leafMap(graphOf(r).Leaves())[`B.routes["E"]`]; v != `&B.routes["D"]` {
		t.Errorf(`B.routes["E"] = %q, want &B.routes["D"]`, v)
	}

	// The order of a set is not a difference.
	r = newRouter()
	r.seen = []string{"a", "x"}
	if d := canon.Diff(graphOf(newRouter()).Leaves(), graphOf(r).Leaves()); len(d) != 0 {
		t.Errorf("reordering a set shows as %v", d)
	}
}

func TestDiffAndMark(t *testing.T) {
	before := graphOf(newRouter()).Leaves()
	r := newRouter()
	r.routes["D"].hops = 3                     // changed
	r.routes["E"] = &Route{hops: 1, next: "E"} // added
	r.queue = nil                              // removed
	g := graphOf(r)
	got := canon.Diff(before, g.Leaves())
	want := []canon.Change{
		{Path: `B.routes["D"].hops`, Kind: "changed", Old: "2", New: "3"},
		{Path: `B.routes["E"].hops`, Kind: "added", New: "1"},
		{Path: `B.routes["E"].next`, Kind: "added", New: `"E"`},
		{Path: `B.queue`, Kind: "added", New: "nil"},
		{Path: `B.queue[0].From`, Kind: "removed", Old: `"B"`},
		{Path: `B.queue[0].To`, Kind: "removed", Old: `"C"`},
		{Path: `B.queue[0].Hops`, Kind: "removed", Old: "0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("diff (-want +got):\n%s", diff)
	}

	g.Mark(got)
	var marked []string
	for _, o := range g.Objects {
		if o.Changed {
			marked = append(marked, o.Path)
		}
	}
	// The changed and added routes and every object above them; not route C, not the set.
	if w := []string{"B", "B.routes", `B.routes["D"]`, `B.routes["E"]`}; !slices.Equal(marked, w) {
		t.Errorf("marked %v, want %v", marked, w)
	}
}

type ptrState struct {
	pp **int
	p  *int
	u  *unrelated
}

type unrelated struct{ x int }

// Pointers to non-structs show as (*path); Mark must still find their objects.
func TestMarkThroughPointers(t *testing.T) {
	x := 1
	px := &x
	s := &ptrState{pp: &px, u: &unrelated{}}
	g := canon.NewGraph([]canon.Root{{Name: "S", V: reflect.ValueOf(s)}})
	before := g.Leaves()
	if v := leafMap(before)["(*(*S.pp))"]; v != "1" {
		t.Fatalf("leaves %v", before)
	}
	x = 2
	g = canon.NewGraph([]canon.Root{{Name: "S", V: reflect.ValueOf(s)}})
	changes := canon.Diff(before, g.Leaves())
	if len(changes) != 1 || changes[0].Path != "(*(*S.pp))" {
		t.Fatalf("changes %v", changes)
	}
	g.Mark(changes)
	var marked []string
	for _, o := range g.Objects {
		if o.Changed {
			marked = append(marked, o.Path)
		}
	}
	if w := []string{"S", "S.pp", "(*S.pp)"}; !slices.Equal(marked, w) {
		t.Errorf("marked %v, want %v", marked, w)
	}
	for _, o := range g.Objects {
		if strings.HasPrefix(o.Path, "S.u") && o.Changed {
			t.Errorf("unrelated object %s marked", o.Path)
		}
	}
}

type routeTable map[string]*Route

type aliasedTables struct {
	named routeTable
	plain map[string]*Route
}

// One map reached through a named and an unnamed map type is one object in the graph too.
func TestGraphNamedAlias(t *testing.T) {
	m := routeTable{"C": {hops: 1}}
	s := &aliasedTables{named: m, plain: m}
	leaves := leafMap(canon.NewGraph([]canon.Root{{Name: "S", V: reflect.ValueOf(s)}}).Leaves())
	if v := leaves["S.plain"]; v != "&S.named" {
		t.Errorf("S.plain = %q, want &S.named; leaves %v", v, leaves)
	}
}
