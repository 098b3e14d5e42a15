package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
)

// runCheckArgs runs the check command as main would, with its output captured.
func runCheckArgs(t *testing.T, model string, set map[string]string, opts service.RunSettings, jsonOut bool, pkg string) (int, string, string) {
	t.Helper()
	f := checkFlags{model: model, params: settings{}, run: opts, jsonOut: jsonOut, quiet: true,
		db: filepath.Join(t.TempDir(), "traces.db")}
	for k, v := range set {
		f.params[k] = v
	}
	if f.run.Search == "" {
		f.run.Search = "bfs"
	}
	var out, errb bytes.Buffer
	code, err := check(context.Background(), &f, pkg, &out, &errb)
	if err != nil {
		errb.WriteString(err.Error())
	}
	return code, out.String(), errb.String()
}

// TestCheckBadInput: each mistake is one line that says what to do, exit 2.
func TestCheckBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	for _, c := range []struct {
		name, model, pkg string
		set              map[string]string
		want             string
	}{
		{"no processes", "Empty", "./testdata/noprocs", nil, "model Empty has no processes: add one with m.Process(name, &state)"},
		{"unknown model", "Nope", "./testdata/noprocs", nil, `unknown model "Nope"; this package has: Counter, Empty`},
		{"malformed set", "Counter", "./testdata/noprocs", map[string]string{"n": "two"}, `parameter n="two": want an integer, e.g. -set n=2`},
		{"unknown parameter", "Counter", "./testdata/noprocs", map[string]string{"m": "1"}, "model Counter has no parameter m; it takes: n (default 2)"},
		{"several models", "", "./testdata/noprocs", nil, "has several models (Counter, Empty): choose one with -model"},
		{"no model", "", "./testdata/nomodel", nil, "defines no model: call cmc.Register(name, build) in an init function"},
		{"does not build", "", "./testdata/broken", nil, "does not build"},
		{"no such package", "", "./testdata/missing", nil, "cannot find package ./testdata/missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCheckArgs(t, c.model, c.set, service.RunSettings{}, false, c.pkg)
			if code != 2 || !strings.Contains(errs, c.want) || out != "" {
				t.Fatalf("exit %d, stdout %q, error %q; want exit 2 and an error containing %q", code, out, errs, c.want)
			}
		})
	}
}

// TestCheckJSON checks the -json object and the exit codes for a clean and a violating model.
func TestCheckJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	code, out, errs := runCheckArgs(t, "TwoPhase", map[string]string{"RM": "3"}, service.RunSettings{}, true, "../../examples/twophase")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		States, Transitions int64
		Depth               int
		ElapsedS            float64 `json:"elapsed_s"`
		Complete            bool
		StoredBytes         int64 `json:"stored_bytes"`
		FrontierBytes       int64 `json:"frontier_bytes"`
		Violations          []struct {
			Kind, Message string
			Length        int
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.States != 288 || res.Transitions != 761 || res.Depth != 10 || !res.Complete || len(res.Violations) != 0 || res.ElapsedS <= 0 ||
		res.StoredBytes < 1<<19 || res.FrontierBytes <= 0 { // the visited table alone has 65,536 slots of 8 bytes
		t.Fatalf("TwoPhase RM=3: %+v", res)
	}

	code, out, _ = runCheckArgs(t, "Panic", nil, service.RunSettings{}, true, "../../internal/coord/testdata/badmodels")
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if len(res.Violations) != 1 || res.Violations[0].Kind != "panic" || res.Violations[0].Message != "boom" || res.Violations[0].Length != 3 {
		t.Fatalf("Panic: %+v", res.Violations)
	}
}

// TestCheckReadable checks the human output names the violation, prints the trace and where it
// was stored, and that a random walk can be kept as a trace.
func TestCheckReadable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	code, out, errs := runCheckArgs(t, "Panic", nil, service.RunSettings{}, false, "../../internal/coord/testdata/badmodels")
	for _, want := range []string{"violation: panic: boom", "1  p  inc", "3  p  bad", "stored as trace 1 in"} {
		if code != 1 || !strings.Contains(out, want) {
			t.Fatalf("exit %d, output lacks %q:\n%s%s", code, want, out, errs)
		}
	}
	code, out, errs = runCheckArgs(t, "Counter", map[string]string{"n": "5"}, service.RunSettings{Search: "random", Steps: 100, Keep: true, Seed: 1}, false, "./testdata/noprocs")
	if code != 0 || !strings.Contains(out, "random walk of 5 steps stored as trace 1") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
}

// TestFindingsNameNoAbsolutePath: a check's findings show sites relative to the working
// directory (or as directory and file outside it) and what each labelled Choose chose.
func TestFindingsNameNoAbsolutePath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(wd, "testdata", "walk", "walk.go")
	tr := &engine.Trace{Model: "Walk", Steps: []engine.Step{{Proc: "p", Event: "step", Site: site + ":20",
		Choices: []engine.Choice{{Value: 1, N: 2, Site: site + ":21", Label: "b moves"}}}},
		Violation: engine.NewViolation("assertion", "", "a and b are both 3", site+":30")}
	var out bytes.Buffer
	writeFindings(&out, &service.Check{Model: "Walk"}, "example.com/walk", &engine.Result{Violations: []*engine.Trace{tr}}, time.Second)
	for _, want := range []string{"violation: assertion: a and b are both 3 (testdata/walk/walk.go:30)", "choose 1/2: b moves @ walk.go:21"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), wd) {
		t.Errorf("output names the absolute path %s:\n%s", wd, out.String())
	}
}

// TestCheckWorkers: -workers says how many instances of the model expand a breadth-first level
// (each built by the model's builder, which prints a line), and the counts do not change.
func TestCheckWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	var first string
	for _, c := range []struct{ workers, builds int }{{1, 1}, {2, 3}, {3, 4}} {
		code, out, errs := runCheckArgs(t, "Grid", nil, service.RunSettings{Workers: c.workers}, true, "./testdata/workers")
		if code != 0 {
			t.Fatalf("-workers %d: exit %d: %s", c.workers, code, errs)
		}
		if n := strings.Count(errs, "[model stdout] built"); n != c.builds {
			t.Errorf("-workers %d: the model was built %d times, want %d:\n%s", c.workers, n, c.builds, errs)
		}
		var res struct {
			States, Transitions int64
			Depth               int
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if got := fmt.Sprintf("%+v", res); first == "" {
			first = got
		} else if got != first {
			t.Errorf("-workers %d: %s, want %s as with one worker", c.workers, got, first)
		}
	}
}
