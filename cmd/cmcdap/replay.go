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

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
)

func init() {
	commands["replay"] = command{run: runReplay,
		usage: "replay a stored trace, proving every step: replay [-db FILE] [-pkg PATH] [-to N] ID (or -trace FILE.json)"}
}

// replayFlags are the replay command's flags.
type replayFlags struct {
	db, pkg, file, model string
	to                   int
	states               int64 // minimize: bound of its breadth-first search
	jsonOut              bool  // minimize: print a minimizeResult
}

func runReplay(args []string, stdout, stderr io.Writer) int {
	var f replayFlags
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.db, "db", "", dbUsage)
	fs.StringVar(&f.pkg, "pkg", "", "the package that registers the model (default: the one the trace's run checked, else .)")
	fs.IntVar(&f.to, "to", 0, "replay only the first `N` steps")
	fs.StringVar(&f.file, "trace", "", "replay the trace in this JSON `file` (an engine.Trace) instead of one from the database")
	fs.StringVar(&f.model, "model", "", "the registered model `name` (default: the trace's model)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(stderr, "replay", err)
	}
	var id int64
	switch {
	case f.file != "" && len(pos) == 0:
	case f.file == "" && len(pos) == 1:
		if id, err = strconv.ParseInt(pos[0], 10, 64); err != nil || id < 1 {
			return fail(stderr, "replay", fmt.Errorf("%q is not a trace id: give the number cmcdap check printed, e.g. cmcdap replay 3", pos[0]))
		}
	default:
		return fail(stderr, "replay", errors.New("give one trace id (cmcdap replay 3) or -trace FILE.json"))
	}
	if err := atLeast("to", f.to, 0, "the number of steps to replay; 0 means all"); err != nil {
		return fail(stderr, "replay", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := replayTrace(ctx, &f, id, stdout)
	if err != nil {
		return fail(stderr, "replay", err)
	}
	return code
}

// replayTrace replays trace id (or f.file) in a worker built from the model's package, prints
// what it proved and returns the exit code: 0 every step and the violation reproduced, 1 it
// diverged, 2 it could not be replayed at all.
func replayTrace(ctx context.Context, f *replayFlags, id int64, stdout io.Writer) (int, error) {
	t, what, pkg, err := loadTraceAndPackage(ctx, f, id)
	if err != nil {
		return 2, err
	}
	prog, err := service.Build(ctx, pkg)
	if err != nil {
		return 2, err
	}
	sum, err := prog.Replay(ctx, t, service.Replay{Model: f.model, To: f.to})
	var died *service.ErrDied
	switch {
	case errors.As(err, &died):
		fmt.Fprintf(stdout, "replaying %s killed the worker: %s\n", what, died.Crash.Message)
		return 1, nil
	case err != nil:
		return 2, fmt.Errorf("%w (package %s)", err, pkg.ImportPath)
	}
	fmt.Fprintln(stdout, sum.Describe(what))
	if !sum.OK() {
		return 1, nil
	}
	return 0, nil
}

// loadTraceAndPackage reads the trace (loadTrace) and finds the package that registers its
// model: -pkg, else the one its run checked, else the current directory.
func loadTraceAndPackage(ctx context.Context, f *replayFlags, id int64) (*engine.Trace, string, *service.Package, error) {
	t, what, pkgPath, err := loadTrace(f, id)
	if err != nil {
		return nil, "", nil, err
	}
	if f.to > len(t.Steps) {
		n := fmt.Sprintf("%d steps", len(t.Steps))
		if len(t.Steps) == 1 {
			n = "1 step"
		}
		return nil, "", nil, fmt.Errorf("-to %d: %s has %s: give -to 1 to %d, or leave it out to replay all", f.to, what, n, len(t.Steps))
	}
	if f.pkg != "" {
		pkgPath = f.pkg
	}
	if pkgPath == "" {
		pkgPath = "."
	}
	pkg, err := service.Resolve(ctx, ".", pkgPath)
	if err != nil {
		return nil, "", nil, err
	}
	return t, what, pkg, nil
}

// loadTrace reads the trace from f.file or the database, with a name for it and the package its
// run checked (empty when unknown).
func loadTrace(f *replayFlags, id int64) (t *engine.Trace, what, pkg string, err error) {
	if f.file != "" {
		b, err := os.ReadFile(f.file)
		if err != nil {
			return nil, "", "", err
		}
		t = new(engine.Trace)
		if err := json.Unmarshal(b, t); err != nil {
			return nil, "", "", fmt.Errorf("%s is not a trace in JSON: %w", f.file, err)
		}
		return t, fmt.Sprintf("%s (%s)", f.file, t.Model), "", nil
	}
	db, err := openTraceDB(f.db, false)
	if err != nil {
		return nil, "", "", err
	}
	defer db.Close()
	t, info, err := db.Trace(id)
	if err != nil {
		return nil, "", "", err
	}
	if info.Run != 0 {
		if run, err := db.Run(info.Run); err == nil {
			pkg = run.Package
		}
	}
	return t, fmt.Sprintf("trace %d (%s)", id, info.Model), pkg, nil
}
