package dap

import (
	"context"
	"fmt"
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

// TestChooseLabelsAndRelativeSites: a labelled Choose (cmc.ChooseOf) says what it chose in the
// stack frame, the Choices scope and the cmc/choices hints ("0: to B"), and every site shown as
// text is relative to the workspace; only Source.path and the hints' file (what the editor opens
// and matches documents by) stay absolute.
func TestChooseLabelsAndRelativeSites(t *testing.T) {
	db := filepath.Join(t.TempDir(), "traces.db")
	id := storeLabelledTrace(t, db, "to B")
	workspace, err := filepath.Abs("../..") // the module root, as VS Code's ${workspaceFolder}
	if err != nil {
		t.Fatal(err)
	}
	file := relayFile(t)
	line := lineOf(t, file, "cmc.Choose(2)")
	rel := fmt.Sprintf("internal/dap/testdata/relay/relay.go:%d", line)

	c := start(t, Config{})
	initialize(t, c)
	// 2 >> launch {trace, cwd: the workspace}; >> configurationDone, << stopped exception
	c.LaunchRequest(map[string]any{"trace": id, "db": db, "cwd": workspace})
	daptest.Expect[*dap.InitializedEvent](t, c)
	daptest.Expect[*dap.LaunchResponse](t, c)
	c.ConfigurationDoneRequest()
	daptest.Expect[*dap.ConfigurationDoneResponse](t, c)
	daptest.ExpectStopped(t, c, "exception")
	// 3 >> cmc/gotoStep 0; >> stepIn: inside #1 at its Choose
	gotoStep(t, c, 0)
	c.StepInRequest(1)
	daptest.Expect[*dap.StepInResponse](t, c)
	daptest.ExpectStopped(t, c, "step")
	// 4 >> stackTrace: the frame says what the Choose chose; its source is the editor's path
	top := stack(t, c, 1)[0]
	if !strings.HasSuffix(top.Name, " › Choose(2) = 0: to B") || top.Source == nil || top.Source.Path != file || top.Line != line {
		t.Fatalf("frame inside step 1: %q at %+v:%d", top.Name, top.Source, top.Line)
	}
	// 5 >> scopes, variables (Choices): the value with its label, the site relative
	ch := vars(t, c, scopeRefs(t, c, top.Id)["Choices"])
	v := ch[fmt.Sprintf("#1 relay.go:%d", line)]
	if len(ch) != 1 || v.Value != "0: to B" || v.Type != "Choose(2) at "+rel {
		t.Fatalf("choices inside step 1: %+v", ch)
	}
	// 6 >> cmc/choices: the hint carries the label, a relative site and the editor's file
	c.Send("cmc/choices", nil)
	var r choicesBody
	daptest.ExpectCustom(t, c, "cmc/choices", &r)
	want := choiceHint{Step: 1, Choice: 1, Site: rel, File: file, Line: line, Value: 0, N: 2, Label: "to B"}
	if len(r.Choices) != 1 || r.Choices[0] != want {
		t.Fatalf("hints %+v, want [%+v]", r.Choices, want)
	}
	for _, text := range []string{top.Name, v.Value, v.Type, r.Choices[0].Site} {
		if strings.Contains(text, workspace) {
			t.Errorf("%q names the workspace's absolute path %s", text, workspace)
		}
	}
}

// storeLabelledTrace stores the relay model's violation with a label on its first Choose, as
// cmc.ChooseOf records one.
func storeLabelledTrace(t testing.TB, path, label string) int64 {
	t.Helper()
	res, err := engine.Check(context.Background(), relay.New(2), engine.Options{})
	if err != nil || len(res.Violations) != 1 {
		t.Fatalf("check: %v, %d violations", err, len(res.Violations))
	}
	tr := res.Violations[0]
	tr.Steps[0].Choices[0].Label = label
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
