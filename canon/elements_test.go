package canon_test

//lint:file-ignore U1000 the test types' unexported fields are read by canon through reflection, never by name

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/canon"
)

// A diff names the elements of a slice as the graph does (elements.go): a set's by value, a keyed
// slice's by key, any other slice's by position. These tests are the complaint made
// small: a packet leaving the network must be one removal, not a change of every later packet.

type Pkt struct {
	From, To string
	Msg      Body
}

type Body struct {
	ID   int
	Type string
}

type Entry struct {
	Dest string
	Hops int
}

type Seen struct {
	Orig string
	ID   int
}

type node struct {
	Air    []Pkt `cmc:"set"`
	Queue  []Pkt
	Routes []Entry
	Seen   []Seen
	Ptrs   []*Entry
	Votes  [3]int
	Table  map[string]int
}

// leavesWith flattens n under rules (restoring no rules after).
func leavesWith(t *testing.T, rules []canon.Rule, n *node) []canon.Leaf {
	t.Helper()
	if err := canon.SetRules(rules); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { canon.SetRules(nil) })
	return canon.NewGraph([]canon.Root{{Name: "n", V: reflect.ValueOf(n)}}).Leaves()
}

func diffWith(t *testing.T, rules []canon.Rule, a, b *node) []canon.Change {
	t.Helper()
	return canon.Diff(leavesWith(t, rules, a), leavesWith(t, rules, b))
}

var (
	rreq = Pkt{From: "A", To: "B", Msg: Body{ID: 1, Type: "RREQ"}}
	rrep = Pkt{From: "B", To: "A", Msg: Body{ID: 2, Type: "RREP"}}
	rerr = Pkt{From: "C", To: "A", Msg: Body{ID: 3, Type: "RERR"}}
)

func removed(prefix string, fields ...[2]string) []canon.Change {
	var out []canon.Change
	for _, f := range fields {
		out = append(out, canon.Change{Path: prefix + f[0], Kind: "removed", Old: f[1]})
	}
	return out
}

func pktLeaves(p Pkt) [][2]string {
	return [][2]string{
		{".From", `"` + p.From + `"`}, {".To", `"` + p.To + `"`},
		{".Msg.ID", strconv.Itoa(p.Msg.ID)}, {".Msg.Type", `"` + p.Msg.Type + `"`},
	}
}

// A set element that leaves is one removal, wherever it sorted; the others are untouched.
func TestDiffSetByValue(t *testing.T) {
	before := &node{Air: []Pkt{rreq, rrep, rerr}}
	after := &node{Air: []Pkt{rerr, rrep}} // rreq delivered; order is not state
	got := diffWith(t, nil, before, after)
	want := removed(`n.Air[{"A" "B" {1 "RREQ"}}]`, pktLeaves(rreq)...)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("delivering one packet (-want +got):\n%s", d)
	}

	// A packet that arrives is one addition.
	got = diffWith(t, nil, after, before)
	if len(got) != 4 || got[0].Kind != "added" || got[0].Path != `n.Air[{"A" "B" {1 "RREQ"}}].From` {
		t.Errorf("sending one packet: %v", got)
	}

	// Equal elements of a multiset are told apart by a count; one leaving is one removal.
	twice := &node{Air: []Pkt{rreq, rreq}}
	once := &node{Air: []Pkt{rreq}}
	got = diffWith(t, nil, twice, once)
	want = removed(`n.Air[{"A" "B" {1 "RREQ"}}#2]`, pktLeaves(rreq)...)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("one of two equal packets delivered (-want +got):\n%s", d)
	}
}

// A keyed slice names elements by key: an entry inserted in front of another is one addition,
// and the other's change is one change under its own name, though both moved.
func TestDiffKeyedSlice(t *testing.T) {
	typ := canon.TypeName(reflect.TypeFor[node]())
	rules := []canon.Rule{
		{Type: typ, Field: "Routes", Key: []string{"Dest"}},
		{Type: typ, Field: "Seen", Key: []string{"Orig", "ID"}},
		{Type: typ, Field: "Queue", Key: []string{"Msg.ID"}},
		{Type: typ, Field: "Ptrs", Key: []string{"Dest"}},
	}
	before := &node{
		Routes: []Entry{{"C", 1}, {"D", 3}},
		Seen:   []Seen{{"B", 1}},
		Queue:  []Pkt{rreq, rrep},
		Ptrs:   []*Entry{{"D", 1}},
	}
	after := &node{
		Routes: []Entry{{"A", 1}, {"C", 1}, {"D", 2}}, // A learnt; D's hops changed
		Seen:   []Seen{{"A", 1}, {"B", 1}},
		Queue:  []Pkt{rrep}, // the front message taken
		Ptrs:   []*Entry{{"D", 1}},
	}
	got := diffWith(t, rules, before, after)
	want := []canon.Change{
		{Path: "n.Routes[Dest=\"A\"].Dest", Kind: "added", New: `"A"`},
		{Path: "n.Routes[Dest=\"A\"].Hops", Kind: "added", New: "1"},
		{Path: "n.Routes[Dest=\"D\"].Hops", Kind: "changed", Old: "3", New: "2"},
		{Path: "n.Seen[Orig=\"A\",ID=1].Orig", Kind: "added", New: `"A"`},
		{Path: "n.Seen[Orig=\"A\",ID=1].ID", Kind: "added", New: "1"},
	}
	want = append(want, removed("n.Queue[Msg.ID=1]", pktLeaves(rreq)...)...)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("keyed slices (-want +got):\n%s", d)
	}
	if l := leavesWith(t, rules, after); !hasPath(l, `n.Ptrs[Dest="D"]`) {
		t.Errorf("a slice of pointers keyed through them: %v", l)
	}
}

// A key on a set makes a changed element a change, not a removal and an addition.
func TestDiffKeyedSet(t *testing.T) {
	rules := []canon.Rule{{Type: canon.TypeName(reflect.TypeFor[node]()), Field: "Air", Key: []string{"Msg.ID"}}}
	moved := rreq
	moved.To = "C"
	got := diffWith(t, rules, &node{Air: []Pkt{rreq, rrep}}, &node{Air: []Pkt{rrep, moved}})
	want := []canon.Change{{Path: "n.Air[Msg.ID=1].To", Kind: "changed", Old: `"B"`, New: `"C"`}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Without a key, a slice's elements are its positions, and an array's: an element is what is at
// an index (a vote per node), and maps were always named by key.
func TestDiffByPositionAndMapKey(t *testing.T) {
	got := diffWith(t, nil, &node{Votes: [3]int{1, 2, 3}, Table: map[string]int{"a": 1, "b": 2}},
		&node{Votes: [3]int{2, 3, 3}, Table: map[string]int{"b": 2}})
	want := []canon.Change{
		{Path: "n.Votes[0]", Kind: "changed", Old: "1", New: "2"},
		{Path: "n.Votes[1]", Kind: "changed", Old: "2", New: "3"},
		{Path: `n.Table["a"]`, Kind: "removed", Old: "1"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func hasPath(ls []canon.Leaf, prefix string) bool {
	for _, l := range ls {
		if canon.Path(l.Path).Under(canon.Path(prefix)) {
			return true
		}
	}
	return false
}

type odd struct{ s string }

func (o odd) String() string { return o.s }

type oddSet struct {
	S []odd `cmc:"set"`
}

// A value whose printed form would break a path is quoted: every path still splits back into
// its segments, one per element.
func TestElementNamesStayPaths(t *testing.T) {
	s := &oddSet{S: []odd{{"a]b"}, {`say "hi`}, {"x.y[0]"}}}
	for _, l := range canon.NewGraph([]canon.Root{{Name: "s", V: reflect.ValueOf(s)}}).Leaves() {
		segs := canon.Path(l.Path).Segments()
		if len(segs) != 4 || !segs[2].Keyed() || segs[3] != "s" {
			t.Errorf("%s splits into %q", l.Path, segs)
		}
	}
}

// Key rules are checked: their form when set, and against the field's type once a plan meets it.
func TestKeyRuleMistakes(t *testing.T) {
	typ := canon.TypeName(reflect.TypeFor[node]())
	for _, r := range []canon.Rule{
		{Type: typ, Field: "Routes"},                                    // no key
		{Type: typ, Field: "Routes", Tag: "set", Key: []string{"Dest"}}, // a tag too
		{Type: typ, Field: "Routes", Key: []string{"Dest+1"}},           // not a field name
	} {
		if err := canon.SetRules([]canon.Rule{r}); err == nil {
			t.Errorf("SetRules(%v) accepted", r)
		}
	}
	if err := canon.SetRules([]canon.Rule{
		{Type: typ, Field: "Routes", Key: []string{"Dest"}},
		{Type: typ, Field: "Routes", Key: []string{"Hops"}},
	}); err == nil {
		t.Error("two keys for one field accepted")
	}
	bad := []canon.Rule{
		{Type: typ, Field: "Routes", Key: []string{"Next"}}, // Entry has no Next
		{Type: typ, Field: "Votes", Key: []string{"Dest"}},  // an array
	}
	leavesWith(t, bad, &node{Routes: []Entry{{"C", 1}}})
	encode(t, &node{})
	got := canon.Unmatched(bad)
	want := []string{
		"rule key " + typ + ".Routes by Next: key Next: canon_test.Entry has no field Next",
		"rule key " + typ + ".Votes by Dest: the field is a [3]int, not a slice; a key names the elements of a slice",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// A bad key names nothing: the elements keep their positions.
	if l := leavesWith(t, bad, &node{Routes: []Entry{{"C", 1}}}); !hasPath(l, "n.Routes[0]") {
		t.Errorf("leaves %v", l)
	}
}

type bigSet struct {
	S []string `cmc:"set"`
}

// A long value is cut in its name, with a hash that keeps distinct elements apart.
func TestLongElementNames(t *testing.T) {
	long := strings.Repeat("x", 300)
	s := &bigSet{S: []string{long + "a", long + "b"}}
	leaves := canon.NewGraph([]canon.Root{{Name: "s", V: reflect.ValueOf(s)}}).Leaves()
	if len(leaves) != 2 || leaves[0].Path == leaves[1].Path {
		t.Fatalf("leaves %v", leaves)
	}
	for _, l := range leaves {
		if len(l.Path) > 150 || len(canon.Path(l.Path).Segments()) != 3 {
			t.Errorf("path %q (%d bytes)", l.Path, len(l.Path))
		}
	}
}
