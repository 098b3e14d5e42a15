package canon

import (
	"strings"
	"testing"
)

func TestPathSegments(t *testing.T) {
	for _, c := range []struct{ path, segs, root string }{
		{`B`, `B`, `B`},
		{`B.routes[D].seq`, `B|routes|[D]|seq`, `B`},
		{`B.m["a].b"].x`, `B|m|["a].b"]|x`, `B`},
		{`(*S.p)`, `S|p|*`, `S`},
		{`(*(*S.pp)).x`, `S|pp|*|*|x`, `S`},
		{`(*(*net))[0]`, `net|*|*|[0]`, `net`},
		{`S.m[{1 2}].v`, `S|m|[{1 2}]|v`, `S`},
		{`B[3]`, `B|[3]`, `B`},
	} {
		var names []string
		var back Path
		for _, s := range Path(c.path).Segments() {
			names = append(names, string(s))
			back = back.Child(s)
		}
		if got := strings.Join(names, "|"); got != c.segs {
			t.Errorf("Segments(%s) = %s, want %s", c.path, got, c.segs)
		}
		if string(back) != c.path {
			t.Errorf("rebuilt %s as %s", c.path, back)
		}
		if got := Path(c.path).Root(); got != c.root {
			t.Errorf("Root(%s) = %s, want %s", c.path, got, c.root)
		}
	}
}

// TestPathUnder: two dereferences at the start (a **T component or field) are still under the
// component, which a copy of this test in replay once got wrong.
func TestPathUnder(t *testing.T) {
	for _, c := range []struct {
		path, p string
		want    bool
	}{
		{`B.Routes["A"].Hops`, `B.Routes["A"]`, true},
		{`B.Routesx`, `B.Routes`, false},
		{`(*(*S.p)).x`, `S.p`, true},
		{`(*(*net).pp)`, `net`, true},
		{`(*(*net))`, `net`, true},
		{`(*(*netx))`, `net`, false},
		{`(*net2).x`, `net`, false},
	} {
		if got := Path(c.path).Under(Path(c.p)); got != c.want {
			t.Errorf("%s.Under(%s) = %v", c.path, c.p, got)
		}
	}
}

func FuzzPathSegments(f *testing.F) {
	for _, s := range []string{`B.routes[D].seq`, `(*(*S.pp)).x`, `B.m["a].b"].x`, `(*`, `[`, `a.`, `x[9][10]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Path(s)
		p.Segments() // must not panic on what canon never writes
		if p.Compare(p) != 0 {
			t.Fatalf("%q.Compare(itself) != 0", s)
		}
		_ = p.Root()
		if !p.Under(p) {
			t.Fatalf("%q is not under itself", s)
		}
	})
}
