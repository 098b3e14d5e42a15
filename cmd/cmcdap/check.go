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
	"strings"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/tracefmt"
	"github.com/cmc-go/cmc/worker"
)

func init() {
	commands["check"] = command{run: runCheck, usage: "check a model: check [-model NAME] [-set K=V]... [-search bfs|dfs|random] [-depth N] [-json] PKG"}
}

// settings collects repeated -set KEY=VALUE flags.
type settings map[string]string

func (s settings) String() string { return "" }

func (s settings) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, e.g. -set nodes=3")
	}
	s[k] = v
	return nil
}

// checkFlags are the check command's flags; the DAP launch configuration maps onto the same request.
type checkFlags struct {
	model    string
	params   settings
	opts     worker.CheckOptions
	jsonOut  bool
	db       string
	bookmark string
	quiet    bool
}

func runCheck(args []string) int {
	f := checkFlags{params: settings{}}
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.StringVar(&f.model, "model", "", "model `name` (default: the package's only model)")
	fs.Var(f.params, "set", "model parameter `KEY=VALUE` (repeatable)")
	fs.StringVar(&f.opts.Search, "search", "bfs", "search: bfs (shortest traces), dfs or random")
	fs.IntVar(&f.opts.MaxDepth, "depth", 0, "depth bound (0: none)")
	fs.Int64Var(&f.opts.MaxStates, "states", 0, "stop after this many states (0: no bound)")
	fs.BoolVar(&f.opts.All, "all", false, "go on after a violation and report every distinct one")
	fs.BoolVar(&f.opts.Exact, "exact", false, "keep states exactly instead of 64-bit hashes")
	fs.IntVar(&f.opts.Steps, "steps", 10000, "random: walk length")
	fs.Uint64Var(&f.opts.Seed, "seed", 1, "random: seed")
	fs.BoolVar(&f.opts.Keep, "keep", false, "random: store the walk as a trace even without a violation")
	fs.Float64Var(&f.opts.Deadline, "deadline", 10, "seconds one transition may run before it is reported as a hang")
	fs.Var(&memoryFlag{&f.opts.Memory}, "memory", "the worker's memory `limit`, e.g. 512MiB or 8GiB; more live data is a finding (default 4GiB)")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON object")
	fs.StringVar(&f.db, "db", "", "trace database (default .cmc/traces.db)")
	fs.StringVar(&f.bookmark, "bookmark", "", "start from this bookmarked state instead of the initial state")
	fs.BoolVar(&f.quiet, "q", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "cmcdap check: give one package, e.g. cmcdap check ./examples/aodv")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := check(ctx, &f, fs.Arg(0), os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmcdap check: "+err.Error())
	}
	return code
}

// check runs the check and prints its outcome; it returns the exit code.
func check(ctx context.Context, f *checkFlags, pkgPath string, stdout, stderr io.Writer) (int, error) {
	start := time.Now()
	pkg, err := coord.Resolve(ctx, ".", pkgPath)
	if err != nil {
		return 2, err
	}
	bin, err := coord.Build(ctx, pkg)
	if err != nil {
		return 2, err
	}
	if f.model == "" {
		models, err := coord.Models(ctx, bin, coord.Prefixed(stderr))
		if err != nil {
			return 2, err
		}
		switch len(models) {
		case 0:
			return 2, fmt.Errorf("package %s defines no model: call cmc.Register(name, build) in an init function", pkg.ImportPath)
		case 1:
			f.model = models[0]
		default:
			return 2, fmt.Errorf("package %s has several models (%s): choose one with -model", pkg.ImportPath, strings.Join(models, ", "))
		}
	}
	db, err := openStore(f.db)
	if err != nil {
		return 2, err
	}
	defer db.Close()
	if f.bookmark != "" {
		from, step, err := db.bookmarkTrace(f.bookmark)
		if err != nil {
			return 2, err
		}
		f.opts.From, f.opts.FromSteps = from, step
	}
	req := &worker.Request{Model: f.model, Params: f.params, Check: &f.opts}
	progress := func(p engine.Progress) {}
	if !f.quiet {
		progress = progressPrinter(stderr, time.Now())
	}
	checking := time.Now()
	res, err := coord.Check(ctx, bin, req, progress, coord.Prefixed(stderr))
	if err != nil {
		if ctx.Err() != nil {
			return 2, errors.New("interrupted")
		}
		return 2, err
	}
	elapsed := time.Since(checking)
	ids, err := db.saveRun(pkg, f, res, start, time.Since(start))
	if err != nil {
		return 2, err
	}
	if f.jsonOut {
		writeJSON(stdout, res, ids, elapsed)
	} else {
		writeSummary(stdout, f, pkg.ImportPath, res, ids, elapsed, db.path)
	}
	if len(res.Violations) > 0 {
		return 1, nil
	}
	return 0, nil
}

func progressPrinter(w io.Writer, start time.Time) func(engine.Progress) {
	return func(p engine.Progress) {
		secs := time.Since(start).Seconds()
		fmt.Fprintf(w, "%10d states  %8.0f states/s  frontier %d  depth %d\n", p.States, float64(p.States)/secs, p.Frontier, p.Depth)
	}
}

func writeSummary(w io.Writer, f *checkFlags, pkg string, res *engine.Result, ids []int64, elapsed time.Duration, dbPath string) {
	tracefmt.Summary(w, tracefmt.Check{Model: f.model, Params: f.params, Package: pkg, Search: f.opts.Search, All: f.opts.All, Elapsed: elapsed}, res)
	for i, t := range res.Violations {
		v := t.Violation
		line := tracefmt.Violation(v)
		if v.Site != "" {
			line += " (" + v.Site + ")"
		}
		fmt.Fprintf(w, "\nviolation: %s\n", line)
		tracefmt.Write(w, t)
		if i < len(ids) {
			fmt.Fprintf(w, "stored as trace %d in %s\n", ids[i], dbPath)
		}
	}
	if res.Walk != nil && len(ids) > len(res.Violations) {
		fmt.Fprintf(w, "\nrandom walk of %d steps stored as trace %d in %s\n", len(res.Walk.Steps), ids[len(ids)-1], dbPath)
	}
}

func writeJSON(w io.Writer, res *engine.Result, ids []int64, elapsed time.Duration) {
	type violation struct {
		Kind    string `json:"kind"`
		Name    string `json:"name,omitempty"`
		Message string `json:"message"`
		Length  int    `json:"length"`
		TraceID int64  `json:"trace_id,omitempty"`
	}
	out := struct {
		States      int64       `json:"states"`
		Transitions int64       `json:"transitions"`
		Depth       int         `json:"depth"`
		ElapsedS    float64     `json:"elapsed_s"`
		Complete    bool        `json:"complete"`
		Exact       bool        `json:"exact"`
		Collision   float64     `json:"collision_probability"`
		Cut         int64       `json:"cut"`
		Violations  []violation `json:"violations"`
		WalkTraceID int64       `json:"walk_trace_id,omitempty"`
	}{States: res.States, Transitions: res.Transitions, Depth: res.Depth, ElapsedS: elapsed.Seconds(),
		Complete: res.Complete, Exact: res.Exact, Collision: res.CollisionProbability, Cut: res.Cut, Violations: []violation{}}
	for i, t := range res.Violations {
		v := violation{Kind: t.Violation.Kind, Name: t.Violation.Name, Message: t.Violation.Message, Length: len(t.Steps)}
		if i < len(ids) {
			v.TraceID = ids[i]
		}
		out.Violations = append(out.Violations, v)
	}
	if res.Walk != nil && len(ids) > len(res.Violations) {
		out.WalkTraceID = ids[len(ids)-1]
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}
