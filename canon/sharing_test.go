package canon_test

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// A component whose root reaches no other memory (a process of one string) is captured without
// being numbered or queued; its memory must still meet every other component's in the sharing
// checks, in either order, and the error must name both paths.
func TestSharingWithSelfContainedRoot(t *testing.T) {
	type rm struct {
		State string
		Votes int
	}
	type tm struct {
		Phase string
		Vote  *rm
		Votes *int
		All   []rm
	}
	rms := make([]rm, 2)
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
