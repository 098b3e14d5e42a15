package engine

import "testing"

// TestParseSite: the one reader of a site's "file:line" (the extension compares resolved paths only).
func TestParseSite(t *testing.T) {
	for in, want := range map[string]SourceLine{
		"/a/b.go:12":   {"/a/b.go", 12},
		`C:\a\b.go:7`:  {`C:\a\b.go`, 7},
		"/a/b.go:12:3": {"/a/b.go", 12},
		"nowhere":      {},
		":3":           {},
		"a.go:x":       {},
	} {
		got, ok := ParseSite(in)
		if got != want || ok != (want != SourceLine{}) {
			t.Errorf("ParseSite(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
}

func FuzzParseSite(f *testing.F) {
	for _, s := range []string{"/a/b.go:12", "a:1:2:3", ":", "x:-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		site, ok := ParseSite(s)
		if !ok {
			return
		}
		if site.File == "" || site.Line < 0 {
			t.Fatalf("ParseSite(%q) = %v", s, site)
		}
		// A file that does not itself end in ":N" reads back as written.
		if _, _, num := cutNumber(site.File); !num {
			if again, ok := ParseSite(site.String()); !ok || again != site {
				t.Fatalf("ParseSite(%q) = %v, which reads back as %v", s, site, again)
			}
		}
	})
}

// TestRelSite: a site shown to people is relative to the workspace, or its directory and file
// name when outside it; never absolute.
func TestRelSite(t *testing.T) {
	for _, c := range []struct{ site, root, want string }{
		{"/w/examples/aodv/air.go:146", "/w", "examples/aodv/air.go:146"},
		{"/w/examples/aodv/air.go:146", "/w/", "examples/aodv/air.go:146"},
		{"/w/examples/aodv/air.go:146", "/w/examples/aodv", "air.go:146"},
		{"/wx/aodv/air.go:146", "/w", "aodv/air.go:146"},
		{"/home/u/go/pkg/mod/github.com/cmc-go/cmc@v1.0.0/env/network.go:71", "/w", "env/network.go:71"},
		{"/w/air.go:1", "", "w/air.go:1"},
		{`C:\w\aodv\air.go:9`, `C:\w`, "aodv/air.go:9"},
		{`C:\x\aodv\air.go:9`, `C:\w`, "aodv/air.go:9"},
		{"aodv/air.go:9", "/w", "aodv/air.go:9"},
		{"", "/w", ""},
	} {
		if got := RelSite(c.site, c.root); got != c.want {
			t.Errorf("RelSite(%q, %q) = %q, want %q", c.site, c.root, got, c.want)
		}
	}
}
