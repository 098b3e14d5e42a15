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
	"slices"
	"strings"
	"time"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
)

func init() {
	commands["check"] = command{run: runCheck, usage: "check a model: check [-model NAME] [-set K=V]... [-search bfs|dfs|random] [-depth N] [-cover] [-json] PKG"}
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

// checkFlags are the check command's flags; the DAP launch configuration maps onto the same
// service.Check.
type checkFlags struct {
	model    string
	params   settings
	run      service.RunSettings
	jsonOut  bool
	db       string
	bookmark string
	quiet    bool
	part     partitionFlags // -partitions: partitions.go
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	f := checkFlags{params: settings{}}
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.model, "model", "", "model `name` (default: the package's only model)")
	fs.Var(f.params, "set", "model parameter `KEY=VALUE` (repeatable)")
	def := service.DefaultSettings()
	fs.StringVar(&f.run.Search, "search", def.Search, "search: bfs (shortest traces), dfs, random, best (best-first by the model's score), deepen (iterative deepening: shortest traces, depth-first memory) or swarm (randomised depth-first searches)")
	fs.StringVar(&f.run.Goal, "goal", "", "stop at the first state that reaches the model's scenario `NAME` (m.Sometimes); best-first follows its progress")
	fs.IntVar(&f.run.MaxDepth, "depth", 0, "depth bound (0: none)")
	fs.Int64Var(&f.run.MaxStates, "states", 0, "stop after this many states (0: no bound)")
	fs.BoolVar(&f.run.All, "all", false, "go on after a violation and report every distinct one")
	fs.BoolVar(&f.run.Exact, "exact", false, "keep states exactly instead of 64-bit hashes")
	fs.IntVar(&f.run.Steps, "steps", def.Steps, "random: walk length")
	fs.Uint64Var(&f.run.Seed, "seed", def.Seed, "random, swarm: seed")
	fs.BoolVar(&f.run.Keep, "keep", false, "random: store the walk as a trace even without a violation")
	fs.Float64Var(&f.run.Deadline, "deadline", def.Deadline, "seconds one transition may run before it is reported as a hang")
	fs.Int64Var(&f.run.SelfCheck, "selfcheck", def.SelfCheck, "self-check the first `N` transitions: re-run the next event on restored copies and compare (0: none, -1: every one)")
	fs.IntVar(&f.run.Workers, "workers", 0, "bfs: expand each level, dfs: each state's events (two at most), swarm: run the members, with `N` instances of the model at once, with the same result (0: one per core)")
	fs.IntVar(&f.run.Partitions, "partitions", 0, "bfs: search in `N` worker processes, each owning a partition of the states, exchanging them over NATS; swarm: run the members in N worker processes; with the same result (docs/cluster.md)")
	addMembersFlag(fs, &f.run)
	f.part.addNATSFlags(fs)
	fs.Var(&memoryFlag{&f.run.Memory}, "memory", "the worker's memory `limit`, e.g. 512MiB or 8GiB; more live data is a finding (default 4GiB)")
	fs.BoolVar(&f.jsonOut, "json", false, "print one JSON object")
	fs.StringVar(&f.db, "db", "", dbUsage)
	fs.StringVar(&f.bookmark, "bookmark", "", "start from this bookmarked state instead of the initial state")
	fs.BoolVar(&f.quiet, "q", false, "no progress on stderr")
	fs.BoolVar(&f.run.Coverage, "cover", false, "measure the line coverage of the package's code, with a worker built with go build -cover (slower)")
	fs.StringVar(&f.run.CoverPackages, "coverpkg", "", "with -cover, measure these `packages` too (comma-separated import paths or patterns, e.g. go.etcd.io/raft/v3)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(stderr, "check", err)
	}
	if len(pos) != 1 {
		return fail(stderr, "check", errors.New("give one package, e.g. cmcdap check ./examples/aodv"))
	}
	if err := f.validate(); err != nil {
		return fail(stderr, "check", err)
	}
	return checkUntilInterrupt("check", &f, pos[0], stdout, stderr)
}

// checkUntilInterrupt runs the check f describes on pkg until it ends or the user interrupts it, and returns
// the exit code; an error is one line, named after the command that ran it.
func checkUntilInterrupt(command string, f *checkFlags, pkg string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := check(ctx, f, pkg, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "cmcdap "+command+": "+oneLine(err.Error()))
	}
	return code
}

// validate refuses numbers that mean nothing: negative bounds, zero steps, a deadline that is not
// a positive number of seconds.
func (f *checkFlags) validate() error {
	if err := f.run.Validate(); err != nil {
		return errors.New("-" + err.Error())
	}
	if err := atLeast("depth", f.run.MaxDepth, 0, "0 means no bound"); err != nil {
		return err
	}
	if err := atLeast("states", f.run.MaxStates, 0, "0 means no bound"); err != nil {
		return err
	}
	if err := atLeast("steps", f.run.Steps, 1, "the length of a random walk"); err != nil {
		return err
	}
	if err := atLeast("selfcheck", f.run.SelfCheck, -1, "0 means none, -1 every transition"); err != nil {
		return err
	}
	if err := atLeast("workers", f.run.Workers, 0, "0 means one per core, 1 a single one"); err != nil {
		return err
	}
	if err := atLeast("partitions", f.run.Partitions, 0, "0 means one process"); err != nil {
		return err
	}
	if err := f.validMembers(); err != nil {
		return err
	}
	if err := f.partitionable(); err != nil {
		return err
	}
	return positiveSeconds("deadline", f.run.Deadline)
}

// check runs the check and prints its outcome; it returns the exit code.
func check(ctx context.Context, f *checkFlags, pkgPath string, stdout, stderr io.Writer) (int, error) {
	start := time.Now()
	prog, err := service.Open(ctx, ".", pkgPath)
	if err != nil {
		return 2, err
	}
	c := &service.Check{Model: f.model, Settings: f.run}
	if len(f.params) > 0 { // else the bookmarked trace's, if any
		c.Params = f.params
	}
	// The database is opened before the check only when the check needs it (a bookmark);
	// otherwise after, so a database that cannot be opened loses no finding: it is printed first.
	var db *traceDB
	if f.bookmark != "" {
		if db, err = openStore(f.db); err != nil {
			return 2, err
		}
		defer db.Close()
		b, err := service.Bookmark(db.Store, f.bookmark)
		if err != nil {
			return 2, err
		}
		if err := c.StartFrom(db.Store, b); err != nil {
			return 2, err
		}
	}
	if c.Model, err = prog.ChooseModel(ctx, c.Model, service.Prefixed(stderr)); err != nil {
		var me *service.ModelError
		if errors.As(err, &me) && me.Kind == service.ModelMissing {
			err = fmt.Errorf("package %s has several models (%s): choose one with -model", me.Package, strings.Join(me.Models, ", "))
		}
		return 2, err
	}
	if f.run.Partitions > 0 {
		if err := prog.BuildCluster(ctx); err != nil { // before the progress line's clock starts
			return 2, err
		}
	}
	progress := func(p engine.Progress) {}
	if !f.quiet {
		progress = progressPrinter(stderr, time.Now())
	}
	if f.run.CoverPackages != "" && !f.run.Coverage {
		return 2, errors.New("-coverpkg names packages to measure with -cover: add -cover")
	}
	if f.run.Coverage {
		if err := prog.Cover(ctx, f.run.CoverPackages); err != nil { // before the clock starts: it is not the check's time
			return 2, err
		}
	}
	checking := time.Now()
	var res *engine.Result
	if f.run.Partitions > 0 {
		res, err = checkPartitioned(ctx, prog, c, &f.part, progress, stderr)
	} else {
		res, err = prog.Check(ctx, c, progress, service.Prefixed(stderr))
	}
	if err != nil {
		if ctx.Err() != nil {
			return 2, errors.New("interrupted")
		}
		return 2, err
	}
	elapsed := time.Since(checking)
	if f.part.only != nil && *f.part.only != 0 && f.run.Search == "swarm" {
		writeSwarmProcess(stdout, *f.part.only, f.run.Partitions, res)
		return 0, nil
	}
	if f.part.only != nil && *f.part.only != 0 {
		// A cluster's worker: partition 0 prints and stores the result.
		fmt.Fprintf(stdout, "partition %d of %d done: %d of the search's %d states, %d transitions\n",
			*f.part.only, len(res.Partitions), res.Partitions[*f.part.only].States, res.States, res.Partitions[*f.part.only].Transitions)
		return 0, nil
	}
	if !f.jsonOut {
		writeFindings(stdout, c, prog.Package.ImportPath, res, elapsed)
	}
	dbPath := store.Printable(f.db)
	if dbPath == "" {
		dbPath = store.DefaultPath(".")
	}
	ids, report, storeErr := storeRun(db, f.db, prog.Package, c, res, start, elapsed)
	if f.jsonOut {
		writeJSON(stdout, res, ids, elapsed, storeErr)
	} else {
		writeStored(stdout, res, ids, dbPath, report)
		if storeErr == nil {
			writeNextSteps(stdout, nextTrace(res, ids), f.db, pkgPath)
		}
	}
	code := 0
	if len(res.Violations) > 0 {
		code = 1
	}
	if storeErr != nil {
		line := fmt.Sprintf("%s not stored in %s: %s; fix the database or move it aside (or give -db FILE) and check again",
			unstored(res, len(ids)), dbPath, oneLine(storeErr.Error()))
		if f.jsonOut {
			fmt.Fprintln(stderr, "cmcdap check: "+line)
		} else {
			fmt.Fprintln(stdout, line)
		}
		if code == 0 { // nothing was found, but the run or walk the user asked to keep is lost
			code = 2
		}
	}
	return code, nil
}

// storeRun opens the database at path if the check did not need it before, stores the run, and
// describes it.
func storeRun(db *traceDB, path string, pkg *service.Package, c *service.Check, res *engine.Result, start time.Time, elapsed time.Duration) ([]int64, service.Report, error) {
	if db == nil {
		var err error
		if db, err = openStore(path); err != nil {
			return nil, service.Report{}, err
		}
		defer db.Close()
	}
	runID, ids, err := service.Save(db.Store, pkg, c, res, start, time.Now())
	if err != nil {
		return ids, service.Report{}, err
	}
	return ids, service.NewReport(db.Store, c, res, runID, ids, elapsed), nil
}

// unstored names what a failed store lost (the traces after the stored ones), as the subject of
// "... not stored".
func unstored(res *engine.Result, stored int) string {
	switch n := len(res.Violations) - min(stored, len(res.Violations)); {
	case n == 1 && len(res.Violations) == 1:
		return "the violation above was"
	case n == 1:
		return "the last violation above was"
	case n > 1 && n == len(res.Violations):
		return fmt.Sprintf("the %d violations above were", n)
	case n > 1:
		return fmt.Sprintf("the last %d violations above were", n)
	case res.Walk != nil:
		return "the random walk was"
	}
	return "the run was"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// progressPrinter prints each progress report as a line, in the words of the DAP session's
// progress events (tracefmt.Progress).
func progressPrinter(w io.Writer, start time.Time) func(engine.Progress) {
	return func(p engine.Progress) { fmt.Fprintln(w, tracefmt.Progress(p, time.Since(start))) }
}

// writeFindings prints the check's summary and every violation with its trace: before anything
// is stored, so a store that fails loses nothing the user has not seen.
func writeFindings(w io.Writer, c *service.Check, pkg string, res *engine.Result, elapsed time.Duration) {
	tracefmt.Summary(w, tracefmt.Check{Model: c.Model, Params: c.Params, Package: pkg, Search: c.Settings.Search, All: c.Settings.All, Goal: c.Settings.Goal, Elapsed: elapsed}, res)
	wd, _ := os.Getwd() // sites are shown relative to it; without it, as directory and file
	service.WritePartitions(w, res)
	if res.Coverage != nil {
		tracefmt.WriteExercised(w, tracefmt.Exercised{Transitions: res.Transitions, Expanded: res.Expanded, Events: res.Events, Coverage: res.Coverage, Root: wd})
	}
	for _, t := range res.Violations {
		v := t.Violation
		line := tracefmt.Violation(v)
		if v.Site != "" {
			line += " (" + engine.RelSite(v.Site, wd) + ")"
		}
		fmt.Fprintf(w, "\nviolation: %s\n", line)
		tracefmt.Write(w, t)
	}
}

// writeStored says where the check's traces were stored, and, for a check from a bookmark, how
// it compares with the bookmarked trace.
func writeStored(w io.Writer, res *engine.Result, ids []int64, dbPath string, r service.Report) {
	for i := range res.Violations {
		if i < len(ids) && slices.Contains(r.Before, ids[i]) {
			fmt.Fprintf(w, "the same as trace %d in %s, found before (the same violation along the same steps): not stored again\n", ids[i], dbPath)
			continue
		}
		if i < len(ids) {
			fmt.Fprintf(w, "stored as trace %d in %s", ids[i], dbPath)
			if len(res.Violations) > 1 {
				fmt.Fprintf(w, " (violation %d)", i+1)
			}
			fmt.Fprintln(w)
		}
	}
	walk, scenarios := service.OtherTraces(res, ids)
	if walk != 0 {
		fmt.Fprintf(w, "\nrandom walk of %d steps stored as trace %d in %s\n", len(res.Walk.Steps), walk, dbPath)
	}
	for i, sc := range res.Scenarios {
		if scenarios[i] != 0 {
			fmt.Fprintf(w, "scenario %q: %s in %d steps, stored as trace %d\n", sc.Name, sc.Trace.Violation.Message, len(sc.Trace.Steps), scenarios[i])
		}
	}
	if r.Comparison != "" {
		fmt.Fprintf(w, "from bookmark %s: %s\n", r.Bookmark.Name, r.Comparison)
	}
}

// writeJSON prints the outcome as one object. When storing failed, store_error says why and each
// violation carries its trace, so the finding is in the output.
func writeJSON(w io.Writer, res *engine.Result, ids []int64, elapsed time.Duration, storeErr error) {
	type scenario struct {
		engine.ScenarioResult
		TraceID int64 `json:"trace_id,omitempty"`
	}
	type violation struct {
		Kind    string        `json:"kind"`
		Name    string        `json:"name,omitempty"`
		Message string        `json:"message"`
		Length  int           `json:"length"`
		TraceID int64         `json:"trace_id,omitempty"`
		Trace   *engine.Trace `json:"trace,omitempty"` // only when it was not stored
	}
	out := struct {
		States      int64   `json:"states"`
		Transitions int64   `json:"transitions"`
		Depth       int     `json:"depth"`
		ElapsedS    float64 `json:"elapsed_s"`
		Complete    bool    `json:"complete"`
		Exact       bool    `json:"exact"`
		Collision   float64 `json:"collision_probability"`
		Cut         int64   `json:"cut"`
		// What the search kept (engine.Result): in memory for the whole run, the most its
		// frontier held at once, and what went to temporary files.
		StoredBytes   int64       `json:"stored_bytes"`
		FrontierBytes int64       `json:"frontier_bytes"`
		SpilledBytes  int64       `json:"spilled_bytes"`
		Violations    []violation `json:"violations"`
		WalkTraceID   int64       `json:"walk_trace_id,omitempty"`
		// Scenarios are engine.Result's, each with the id of its stored trace.
		Scenarios  []scenario `json:"scenarios,omitempty"`
		Heuristic  string     `json:"heuristic,omitempty"`
		StoreError string     `json:"store_error,omitempty"`
		// What the search exercised: states expanded, transitions per expanded state, each
		// event's runs, and with -cover the coverage of the user's code.
		Expanded  int64              `json:"expanded"`
		Branching float64            `json:"branching"`
		Events    []engine.EventRuns `json:"events"`
		Coverage  *engine.Coverage   `json:"coverage,omitempty"`
		// Partitions are each partition's share of a partitioned check (-partitions).
		Partitions []engine.PartitionFigures `json:"partitions,omitempty"`
	}{Partitions: res.Partitions, Expanded: res.Expanded, Branching: res.Branching(), Events: res.Events, Coverage: res.Coverage, States: res.States, Transitions: res.Transitions, Depth: res.Depth, ElapsedS: elapsed.Seconds(),
		Complete: res.Complete, Exact: res.Exact, Collision: res.CollisionProbability, Cut: res.Cut,
		StoredBytes: res.StoredBytes, FrontierBytes: res.FrontierBytes, SpilledBytes: res.SpilledBytes, Violations: []violation{},
		Heuristic: res.Heuristic}
	for i, t := range res.Violations {
		v := violation{Kind: t.Violation.Kind, Name: t.Violation.Name, Message: t.Violation.Message, Length: len(t.Steps)}
		if i < len(ids) {
			v.TraceID = ids[i]
		} else {
			v.Trace = t
		}
		out.Violations = append(out.Violations, v)
	}
	walk, scenarios := service.OtherTraces(res, ids)
	out.WalkTraceID = walk
	for i, sc := range res.Scenarios {
		if scenarios[i] != 0 {
			sc.Trace = nil // stored
		}
		out.Scenarios = append(out.Scenarios, scenario{sc, scenarios[i]})
	}
	if storeErr != nil {
		out.StoreError = oneLine(storeErr.Error())
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}
