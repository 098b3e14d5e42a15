package canon_test

//lint:file-ignore U1000 the test types' unexported fields are read by canon through reflection, never by name

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/canon"
)

type Msg struct{ Body string }

type chanPeer struct {
	addr string
	conn chan *Msg
}

type chanNode struct{ peers map[string]*chanPeer }

type funcNode struct {
	id     int
	onRecv func(Msg)
}

type unsafeNode struct{ raw unsafe.Pointer }

type uintptrNode struct{ addr uintptr }

type ptrKeyNode struct{ byPeer map[*chanPeer]int }

type stats struct {
	sent  int
	count int
}

type interiorNode struct {
	stats stats
	cur   *int // points into stats
}

type firstFieldNode struct {
	stats stats
	first *int // &stats.sent: the same address as stats, another type
}

type arrayNode struct {
	table [4]int
	slot  *int
}

type sliceElemNode struct {
	queue []Msg
	head  *Msg
}

type sharedSliceNode struct {
	a, b []int
}

type lockedPeer struct {
	mu   sync.Mutex
	name string
}

type mutexNode struct {
	peers  map[string]*lockedPeer
	byName map[string]lockedPeer
	rw     sync.RWMutex
}

type setOnIntNode struct {
	count int `cmc:"set"`
}

type setOfPointersNode struct {
	ptrs []*int `cmc:"set"`
}

type unknownTagNode struct {
	weird []int `cmc:"bag"`
}

type anyNode struct{ items []any }

type anyKeyNode struct{ byKey map[any]int }

type floatKeyNode struct{ scores map[float64]string }

// twoLocalTypes returns values of two distinct types that share one name.
func twoLocalTypes() []any {
	a := func() any {
		type dup struct{ x int }
		return dup{1}
	}()
	b := func() any {
		type dup struct{ y string }
		return dup{"b"}
	}()
	return []any{a, b}
}

type rejectCase struct {
	name string
	root any
	path string // the path the error must name
}

func rejectCases() []rejectCase {
	n := &interiorNode{}
	n.cur = &n.stats.count
	f := &firstFieldNode{}
	f.first = &f.stats.sent
	arr := &arrayNode{}
	arr.slot = &arr.table[2]
	q := &sliceElemNode{queue: []Msg{{"a"}, {"b"}}}
	q.head = &q.queue[1]
	locked := &mutexNode{peers: map[string]*lockedPeer{"a": {name: "a"}, "b": {name: "b"}, "c": {name: "c"}}}
	locked.peers["b"].mu.Lock()
	var lockedCopy lockedPeer
	lockedCopy.mu.Lock()
	inMap := &mutexNode{byName: map[string]lockedPeer{"a": {}}}
	// A map value holding a locked mutex; through reflect, as the copy is the point.
	reflect.ValueOf(inMap.byName).SetMapIndex(reflect.ValueOf("x"), reflect.ValueOf(&lockedCopy).Elem())
	rw := &mutexNode{}
	rw.rw.RLock()
	x := 1
	return []rejectCase{
		{"chan field", &chanNode{peers: map[string]*chanPeer{"b": {addr: "b"}, "c": {addr: "c"}}}, `nodes.peers["b"].conn`},
		{"func field holding a closure", &funcNode{onRecv: func(Msg) { x++ }}, `nodes.onRecv`},
		{"unsafe.Pointer", &unsafeNode{}, `nodes.raw`},
		{"uintptr", &uintptrNode{}, `nodes.addr`},
		{"map with pointer keys", &ptrKeyNode{byPeer: map[*chanPeer]int{}}, `nodes.byPeer`},
		{"map with pointer keys, nil", &ptrKeyNode{}, `nodes.byPeer`},
		{"interior pointer to a struct field", n, `nodes.cur`},
		{"pointer to a first field", f, `nodes.first`},
		{"pointer to an array element", arr, `nodes.slot`},
		{"pointer to a slice element", q, `nodes.head`},
		{"locked mutex", locked, `nodes.peers["b"].mu`},
		{"locked mutex in a map value", inMap, `nodes.byName["x"].mu`},
		{"read-locked RWMutex", rw, `nodes.rw`},
		{"set on a non-slice", &setOnIntNode{}, `nodes.count`},
		{"set of pointers", &setOfPointersNode{ptrs: []*int{&x}}, `nodes.ptrs`},
		{"unknown cmc tag", &unknownTagNode{}, `nodes.weird`},
		{"chan in an interface", &anyNode{items: []any{1, "two", make(chan int)}}, `nodes.items[2].(chan int)`},
		{"func in an interface", &anyNode{items: []any{1, func() {}}}, `nodes.items[1].(func())`},
		{"pointer in an interface map key", &anyKeyNode{byKey: map[any]int{"a": 1, &x: 2, 3: 3}}, `nodes.byKey[(*int)].(*int)`},
		{"NaN keys", &floatKeyNode{scores: map[float64]string{math.NaN(): "a", math.NaN(): "b", 1: "c"}}, `nodes.scores[NaN]`},
		{"two types with one name", &anyNode{items: twoLocalTypes()}, `nodes.items[1].(canon_test.dup)`},
		{"root not a pointer", chanNode{}, `nodes`},
		{"nil root", (*chanNode)(nil), `nodes`},
		{"nil interface root", nil, `nodes`},
	}
}

// TestRejections checks each rejection names the exact path, and keeps the full messages as a
// transcript in testdata/rejections.golden (go test ./canon -run TestRejections -update rewrites it).
func TestRejections(t *testing.T) {
	var out strings.Builder
	for _, tc := range rejectCases() {
		var enc canon.Encoder
		b, err := enc.EncodeValue([]byte("dst"), reflect.ValueOf(tc.root), "nodes")
		var ce *canon.Error
		switch {
		case err == nil:
			t.Errorf("%s: no error", tc.name)
			continue
		case !errors.As(err, &ce):
			t.Errorf("%s: error %T, want *canon.Error: %v", tc.name, err, err)
			continue
		case ce.Path != tc.path:
			t.Errorf("%s: path %q, want %q (%v)", tc.name, ce.Path, tc.path, err)
		case string(b) != "dst":
			t.Errorf("%s: dst changed to %q on error", tc.name, b)
		}
		fmt.Fprintf(&out, "# %s\n%s\n\n", tc.name, err)
	}
	golden(t, "rejections.golden", out.String())
}

// A failed encoding leaves the encoder fit for the next state.
func TestEncoderAfterRejection(t *testing.T) {
	var enc canon.Encoder
	for _, tc := range rejectCases() {
		_, _ = enc.EncodeValue(nil, reflect.ValueOf(tc.root), "nodes")
		got, err := enc.Encode(nil, newRich())
		if err != nil {
			t.Fatalf("after %s: %v", tc.name, err)
		}
		if want := encode(t, newRich()); string(got) != string(want) {
			t.Fatalf("after %s: different bytes", tc.name)
		}
	}
}

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites it):\n%s", file, diff)
	}
}

// A component's root must be a non-nil pointer.
func TestRootMustBeNonNilPointer(t *testing.T) {
	var nilPtr *interiorNode
	for _, v := range []reflect.Value{{}, reflect.ValueOf(interiorNode{}), reflect.ValueOf(nilPtr)} {
		var enc canon.Encoder
		err := enc.EncodeComponents([]canon.Root{{Name: "p", V: v}}, func(int, []byte) {}, nil)
		if err == nil || !strings.Contains(err.Error(), "p: state root must be a non-nil pointer") {
			t.Errorf("root %v: err %v, want one saying it must be a non-nil pointer", v, err)
		}
	}
}

type boundCell struct{ V int }

func (c *boundCell) inc() { c.V++ }

// A component whose slices share an array (captured in array mode) and which holds something that
// cannot be captured: the error names what cannot be captured, not the sharing, which is allowed.
func TestRejectionBesideSharedArrays(t *testing.T) {
	type node struct {
		A, B []int
		F    func()
	}
	a := []int{1, 2}
	for _, aFirst := range []bool{true, false} {
		n := &node{A: a, B: a[1:], F: (&boundCell{}).inc}
		if !aFirst {
			n.A, n.B = a[1:], a
		}
		var enc canon.Encoder
		err := enc.EncodeComponents([]canon.Root{{Name: "n", V: reflect.ValueOf(n)}}, func(int, []byte) {}, nil)
		if err == nil || !strings.Contains(err.Error(), "n.F") || !strings.Contains(err.Error(), "method value") {
			t.Errorf("err %v; want one about n.F's method value", err)
		}
	}
}
