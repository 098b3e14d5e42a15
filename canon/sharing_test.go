package canon_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// A component whose root reaches no object (a process of a string and a slice of ints) is captured
// without its root being numbered or queued; its memory must still meet every other component's
// in the sharing checks, in either order, and the error must name both paths.
func TestSharingWithRootOfNoObjects(t *testing.T) {
	type rm struct {
		State string
		Votes int
		Log   []int
	}
	type tm struct {
		Phase string
		Vote  *rm
		Votes *int
		All   []rm
		Tail  []int
	}
	rms := []rm{{Log: make([]int, 4)}, {}}
	cases := []struct {
		name  string
		tm    *tm
		roots func(*tm) []canon.Root
		want  []string
	}{
		{"pointer to the root, root first", &tm{Vote: &rms[0]},
			func(m *tm) []canon.Root { return []canon.Root{root("rm0", &rms[0]), root("tm", m)} },
			[]string{"tm.Vote", "rm0"}},
		{"pointer to the root, root last", &tm{Vote: &rms[1]},
			func(m *tm) []canon.Root { return []canon.Root{root("tm", m), root("rm1", &rms[1])} },
			[]string{"rm1", "tm.Vote"}},
		{"pointer into the root", &tm{Votes: &rms[0].Votes},
			func(m *tm) []canon.Root { return []canon.Root{root("rm0", &rms[0]), root("tm", m)} },
			[]string{"tm.Votes", "rm0"}},
		{"slice over the roots", &tm{All: rms},
			func(m *tm) []canon.Root { return []canon.Root{root("rm1", &rms[1]), root("tm", m)} },
			[]string{"tm.All", "rm1"}},
		{"slice of the root's array", &tm{Tail: rms[0].Log[2:]},
			func(m *tm) []canon.Root { return []canon.Root{root("tm", m), root("rm0", &rms[0])} },
			[]string{"rm0.Log", "tm.Tail"}},
		{"one root twice", &tm{},
			func(*tm) []canon.Root { return []canon.Root{root("a", &rms[0]), root("b", &rms[0])} },
			[]string{"b", "a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var enc canon.Encoder
			err := enc.EncodeComponents(c.roots(c.tm), func(int, []byte) {}, nil)
			if err == nil {
				t.Fatal("shared memory between components was captured")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
}

// A type that holds itself through a slice reaches no object: as a root, or as a set's elements.
func TestRecursiveThroughSlice(t *testing.T) {
	type tree struct {
		Name string
		Kids []tree
	}
	type forest struct {
		Trees []tree `cmc:"set"`
	}
	for _, v := range []any{
		&tree{Name: "a", Kids: []tree{{Name: "b"}, {Name: "c", Kids: []tree{{Name: "d"}}}}},
		&forest{Trees: []tree{{Name: "y"}, {Name: "x", Kids: []tree{{Name: "z"}}}}},
	} {
		b := encode(t, v)
		got := reflect.New(reflect.TypeOf(v).Elem())
		if err := canon.Decode(b, got.Interface()); err != nil {
			t.Fatal(err)
		}
		if again := encode(t, got.Interface()); !bytes.Equal(again, b) {
			t.Errorf("%T encodes differently once decoded", v)
		}
	}
}

// Sharing is judged the same whether a capture has a handful of spans or many (overlaps compares
// every pair of a few, and sorts many): slices sharing an array inside one component are
// captured as sharing it, and memory shared with another component is refused.
func TestSharingAmongFewAndManySpans(t *testing.T) {
	type proc struct {
		A, B  []int
		Other [][]int
	}
	for _, others := range []int{0, 20} {
		backing := []int{1, 2, 3, 4}
		p := &proc{A: backing[:2], B: backing[1:3]}
		for range others {
			p.Other = append(p.Other, make([]int, 1))
		}
		var enc canon.Encoder
		var b []byte
		if err := enc.EncodeComponents([]canon.Root{root("p", p)}, func(_ int, e []byte) { b = append(b[:0], e...) }, nil); err != nil {
			t.Fatalf("%d other slices: %v", others, err)
		}
		var got proc
		if err := canon.Decode(b, &got); err != nil {
			t.Fatal(err)
		}
		if &got.A[1] != &got.B[0] {
			t.Errorf("%d other slices: A[1] and B[0] are no longer one element", others)
		}
		type env struct{ Mine []int }
		p.B = []int{5, 6, 7}
		err := enc.EncodeComponents([]canon.Root{root("p", p), root("env", &env{Mine: p.B[2:]})}, func(int, []byte) {}, nil)
		if err == nil || !strings.Contains(err.Error(), "env.Mine") || !strings.Contains(err.Error(), "p.B") {
			t.Errorf("%d other slices: a slice of p's array in env: err %v, want one naming both", others, err)
		}
	}
}
