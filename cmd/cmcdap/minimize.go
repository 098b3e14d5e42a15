package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/replay"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
)

// Two things to do with a stored trace besides stepping through it: make it shorter, and keep it
// as a regression test.
func init() {
	commands["minimize"] = command{run: minimizeCommand,
		usage: "store a shorter trace ending in the same violation: minimize [-db FILE] [-pkg PATH] [-states N] [-json] ID"}
	commands["export-test"] = command{run: exportTestCommand,
		usage: "write a Go test that replays a trace and asserts its violation: export-test [-db FILE] [-pkg PATH] [-o FILE] ID"}
}

// traceCommandFlags parses the flags of a command on one stored trace; more adds the command's
// own. ok false means return code (one line has said why, or -h printed the flags).
func traceCommandFlags(name string, args []string, stderr io.Writer, more func(*flag.FlagSet, *replayFlags)) (f replayFlags, id int64, code int, ok bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.db, "db", "", dbUsage)
	fs.StringVar(&f.pkg, "pkg", "", "the package that registers the model (default: the one the trace's run checked, else .)")
	more(fs, &f)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return f, 0, flagError(stderr, name, err), false
	}
	if len(pos) != 1 {
		return f, 0, fail(stderr, name, fmt.Errorf("give one trace id, e.g. cmcdap %s 3 (cmcdap traces lists them)", name)), false
	}
	id, err = strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id < 1 {
		return f, 0, fail(stderr, name, fmt.Errorf("%q is not a trace id: give the number cmcdap traces lists", pos[0])), false
	}
	return f, id, 0, true
}

func minimizeCommand(args []string, stdout, stderr io.Writer) int {
	f, id, code, ok := traceCommandFlags("minimize", args, stderr, func(fs *flag.FlagSet, f *replayFlags) {
		fs.Int64Var(&f.states, "states", replay.MinimizeStates, "bound of the breadth-first search for the shortest trace; beyond it, steps are deleted instead")
		fs.BoolVar(&f.jsonOut, "json", false, "print the outcome as one JSON object (for editors)")
	})
	if !ok {
		return code
	}
	if err := atLeast("states", f.states, 1, "the bound of the breadth-first search"); err != nil {
		return fail(stderr, "minimize", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := minimize(ctx, &f, id, stdout); err != nil {
		return fail(stderr, "minimize", err)
	}
	return 0
}

// A minimizeResult is what minimize -json prints: an editor words it in its own terms (a button
// that searches further instead of "raise -states").
type minimizeResult struct {
	Trace      int64 `json:"trace"`            // the trace minimized
	Steps      int   `json:"steps"`            // its length
	Stored     int64 `json:"stored,omitempty"` // the shorter trace stored; 0: the trace was minimal already
	ShortSteps int   `json:"short_steps"`      // the length of the shortest trace found
	// Shortest: a breadth-first search proved that no shorter trace ends in the violation. Else
	// it stopped at States states and steps were deleted instead: a shorter trace may exist.
	Shortest bool  `json:"shortest"`
	States   int64 `json:"states"`
}

// minimize runs replay.Minimize on trace id in a worker and stores the result, linked to it.
func minimize(ctx context.Context, f *replayFlags, id int64, stdout io.Writer) error {
	t, what, pkg, err := loadTraceAndPackage(ctx, f, id)
	if err != nil {
		return err
	}
	if t.Violation == nil {
		return fmt.Errorf("%s has no violation to keep: minimize a trace that ends in one", what)
	}
	if !f.jsonOut {
		fmt.Fprintf(stdout, "minimizing %s: %d steps, %s\n", what, len(t.Steps), tracefmt.Violation(t.Violation))
	}
	prog, err := service.Build(ctx, pkg)
	if err != nil {
		return err
	}
	short, shortest, err := prog.Minimize(ctx, t, f.states)
	if err != nil {
		return fmt.Errorf("%w (package %s)", err, pkg.ImportPath)
	}
	res := minimizeResult{Trace: id, Steps: len(t.Steps), ShortSteps: len(short.Steps), Shortest: shortest, States: f.states}
	if len(short.Steps) < len(t.Steps) {
		db, err := openTraceDB(f.db, true)
		if err != nil {
			return err
		}
		defer db.Close()
		if res.Stored, err = db.AddDerived(id, store.Minimized, short, time.Time{}); err != nil {
			return err
		}
	} else {
		res.ShortSteps = len(t.Steps)
	}
	if f.jsonOut {
		return json.NewEncoder(stdout).Encode(res)
	}
	// What the length means: the shortest (a breadth-first search found it), or only 1-minimal.
	how := "the shortest to the same violation"
	if !shortest {
		how = fmt.Sprintf("no step of it can be deleted; breadth-first search stopped at %s states, so a shorter trace may exist: raise -states", tracefmt.Thousands(f.states))
	}
	if res.Stored == 0 {
		fmt.Fprintf(stdout, "%s is minimal already: %s\n", what, how)
		return nil
	}
	fmt.Fprintf(stdout, "stored trace %d: %d steps, %s (cmcdap trace show %d)\n", res.Stored, res.ShortSteps, how, res.Stored)
	return nil
}

func exportTestCommand(args []string, stdout, stderr io.Writer) int {
	var out string
	f, id, code, ok := traceCommandFlags("export-test", args, stderr, func(fs *flag.FlagSet, _ *replayFlags) {
		fs.StringVar(&out, "o", "", "write the test to this `file` (default: standard output)")
	})
	if !ok {
		return code
	}
	if err := exportTest(context.Background(), &f, id, out, stdout); err != nil {
		return fail(stderr, "export-test", err)
	}
	return 0
}

// exportTest writes trace id as a Go test of the package that registers its model, in an external
// test package (NAME_test), to file out or stdout. It does not overwrite a file.
func exportTest(ctx context.Context, f *replayFlags, id int64, out string, stdout io.Writer) error {
	t, what, pkg, err := loadTraceAndPackage(ctx, f, id)
	if err != nil {
		return err
	}
	if t.Violation == nil {
		return fmt.Errorf("%s has no violation to assert: export a trace that ends in one", what)
	}
	src, err := replay.ExportTest(t, pkg.Name+"_test", pkg.ImportPath, pkg.Module)
	if err != nil {
		return err
	}
	if out == "" {
		_, err := stdout.Write(src)
		return err
	}
	file, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists: give another -o, or remove it first", out)
	}
	if err != nil {
		return err
	}
	if _, err := file.Write(src); err != nil {
		file.Close()
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	if k := t.Violation.Kind; k == "hang" || k == "crash" {
		fmt.Fprintf(stdout, "wrote %s: go test %s replays %s and fails while its last step still ends in %s (it runs that step in a child process with a deadline)\n", out, pkg.ImportPath, what, tracefmt.Violation(t.Violation))
		return nil
	}
	fmt.Fprintf(stdout, "wrote %s: go test %s replays %s and fails unless it still ends in %s\n", out, pkg.ImportPath, what, tracefmt.Violation(t.Violation))
	return nil
}
