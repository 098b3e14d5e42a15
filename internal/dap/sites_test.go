package dap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/dap/daptest"
	"github.com/cmc-go/cmc/internal/dap/testdata/relay"
	"github.com/cmc-go/cmc/store"
	"github.com/google/go-dap"
)

func TestSourceFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	router := write("ws/examples/aodv/router.go")
	main := write("ws/main.go")
	air := write("ws/examples/air/air.go")
	var f sourceFiles
	f.setRoots(filepath.Join(dir, "ws"), filepath.Join(dir, "ws/examples/aodv"), "")
	f.saw("/editor/only/env/network.go")
	for _, tc := range []struct{ recorded, want string }{
		{router, router}, // it exists here
		{"/ci/cmc/examples/aodv/router.go", router},               // under the package directory
		{"/ci/cmc/examples/air/air.go", air},                      // under cwd: directory and file agree
		{"/ci/cmc/cmd/main.go", "/ci/cmc/cmd/main.go"},            // under cwd a file name alone says too little
		{"/ci/cmc/env/network.go", "/editor/only/env/network.go"}, // a path the editor sent
		{"/ci/cmc/other/network.go", "/ci/cmc/other/network.go"},
		{"examples/aodv/router.go", router}, // relative, whole under cwd
		{"main.go", main},
	} {
		if got := f.editorPath(tc.recorded); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.recorded, got, tc.want)
		}
	}
}

// TestSitesFromAnotherCheckout opens a trace recorded in another checkout (its sites name
// /ci/elsewhere/...): breakpoints verify, frames point and cmc/choices hints name the editor's
// file by one decision, made once the editor names the file.
func TestSitesFromAnotherCheckout(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	recorded := "/ci/elsewhere/testdata/relay/relay.go"
	id := storeMovedTrace(t, db, relayFile(t), recorded)
	editor, other := relayFile(t), "/some/other/relay.go"
	chooseLine := lineOf(t, editor, "cmc.Choose(2)")

	c := start(t, Config{})
	initialize(t, c)
	// 2 >> launch {trace, cwd elsewhere}: no launch directory holds the file
	c.LaunchRequest(map[string]any{"trace": id, "db": db, "cwd": t.TempDir()})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// 3 before the editor names the file, frames and hints keep the recorded path
	if f := stack(t, c, 1)[0]; f.Source == nil || f.Source.Path != recorded {
		t.Fatalf("top frame before: %+v", f.Source)
	}
	if files := hintFiles(t, c); files != recorded {
		t.Fatalf("hints before: %s", files)
	}
	// 4 >> setBreakpoints on a file that shares only its name: not the trace's file
	c.SetBreakpointsRequest(other, chooseLine)
	if bps := daptest.Expect[*dap.SetBreakpointsResponse](t, c).Body.Breakpoints; bps[0].Verified {
		t.Fatalf("a breakpoint in %s verified: %+v", other, bps[0])
	}
	// 5 >> setBreakpoints on the editor's file: verified, and the hints and frames name it too
	c.SetBreakpointsRequest(editor, chooseLine)
	if bps := daptest.Expect[*dap.SetBreakpointsResponse](t, c).Body.Breakpoints; !bps[0].Verified {
		t.Fatalf("breakpoint in %s: %+v", editor, bps[0])
	}
	if files := hintFiles(t, c); files != editor {
		t.Fatalf("hints after: %s", files)
	}
	if f := stack(t, c, 1)[0]; f.Source == nil || f.Source.Path != editor {
		t.Fatalf("top frame after: %+v", f.Source)
	}
	// 6 >> reverseContinue: the verified breakpoint hits at the recorded Choose call
	c.ReverseContinueRequest(1)
	daptest.Expect[*dap.ReverseContinueResponse](t, c)
	if e := daptest.ExpectStopped(t, c, "breakpoint"); len(e.Body.HitBreakpointIds) != 1 {
		t.Fatalf("hit %v", e.Body.HitBreakpointIds)
	}
}

// storeMovedTrace stores the relay model's violation with its sites' file renamed.
func storeMovedTrace(t testing.TB, path, from, to string) int64 {
	t.Helper()
	res, err := engine.Check(context.Background(), relay.New(2), engine.Options{})
	if err != nil || len(res.Violations) != 1 {
		t.Fatalf("check: %v, %d violations", err, len(res.Violations))
	}
	tr := res.Violations[0]
	for i := range tr.Steps {
		st := &tr.Steps[i]
		st.Site = strings.Replace(st.Site, from, to, 1)
		for j := range st.Choices {
			st.Choices[j].Site = strings.Replace(st.Choices[j].Site, from, to, 1)
		}
	}
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id, err := db.AddTrace(0, tr, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// hintFiles is the distinct files of the cmc/choices hints, joined by |.
func hintFiles(t testing.TB, c *daptest.Client) string {
	t.Helper()
	c.Send("cmc/choices", nil)
	var r struct{ Choices []struct{ File string } }
	daptest.ExpectCustom(t, c, "cmc/choices", &r)
	var files []string
	for _, h := range r.Choices {
		if len(files) == 0 || files[len(files)-1] != h.File {
			files = append(files, h.File)
		}
	}
	return strings.Join(files, "|")
}
