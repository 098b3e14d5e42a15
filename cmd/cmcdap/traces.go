package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
)

// The trace database's commands: list traces (and prune copies), show one, list bookmarks (and
// rename or delete one, so an editor can without a debug session).
func init() {
	commands["traces"] = command{run: tracesCommand,
		usage: "list stored traces: traces [-db FILE] [-json] [-prune]"}
	commands["trace show"] = command{run: traceShowCommand,
		usage: "print a stored trace step by step: trace show [-db FILE] [-json] ID"}
	commands["bookmarks"] = command{run: bookmarksCommand,
		usage: "list bookmarks: bookmarks [-db FILE] [-json] [-delete NAME | -rename NAME -to NEWNAME]"}
}

// dbFlags are the flags the trace database commands share.
type dbFlags struct {
	db      string
	jsonOut bool
}

// parseDBFlags parses args for command name and returns the positional ones; ok false means
// return code (a bad flag said so in one line, or -h printed the flags). more adds the command's
// own flags.
func parseDBFlags(name string, args []string, stderr io.Writer, more ...func(*flag.FlagSet)) (f dbFlags, pos []string, code int, ok bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.db, "db", "", dbUsage)
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	for _, m := range more {
		m(fs)
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return f, nil, flagError(stderr, name, err), false
	}
	return f, pos, 0, true
}

// openTraceDB opens the database at path (default .cmc/traces.db) if there is one: listing
// must not create a database. Unless the command writes, it opens read-only, so a database the
// user may not write (a chmod 0444 file, a read-only directory) can be listed and shown.
// A postgres:// URL opens that database.
func openTraceDB(path string, write bool) (*store.Store, error) {
	if path == "" {
		path = store.DefaultPath(".")
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && !store.IsURL(path) {
		return nil, fmt.Errorf("no trace database at %s: run cmcdap check first, or give -db FILE", path)
	}
	if write {
		return store.Open(path)
	}
	return store.OpenReadOnly(path)
}

// fail prints a one-line error for command name and returns exit code 2.
func fail(stderr io.Writer, name string, err error) int {
	prefix := "cmcdap"
	if name != "" {
		prefix += " " + name
	}
	fmt.Fprintf(stderr, "%s: %s\n", prefix, strings.ReplaceAll(err.Error(), "\n", " "))
	return 2
}

func tracesCommand(args []string, stdout, stderr io.Writer) int {
	var prune bool
	f, pos, code, ok := parseDBFlags("traces", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&prune, "prune", false, "first remove every trace that is the same as an older one (the same violation along the same steps), moving its bookmarks to the one kept")
	})
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return fail(stderr, "traces", fmt.Errorf("unexpected argument %q: to see one trace, use cmcdap trace show %s", pos[0], pos[0]))
	}
	db, err := openTraceDB(f.db, prune)
	if err != nil {
		return fail(stderr, "traces", err)
	}
	defer db.Close()
	if prune {
		removed, err := db.PruneDuplicates()
		if err != nil {
			return fail(stderr, "traces", err)
		}
		if f.jsonOut {
			return printJSON(stdout, stderr, "traces", nonNil(removed))
		}
		for _, d := range removed {
			fmt.Fprintf(stdout, "removed trace %d: the same as trace %d\n", d.Removed, d.Kept)
		}
		if len(removed) == 0 {
			fmt.Fprintln(stdout, "no duplicate traces")
		}
		fmt.Fprintln(stdout)
	}
	traces, err := db.Traces(store.TraceQuery{})
	if err != nil {
		return fail(stderr, "traces", err)
	}
	if f.jsonOut {
		return printJSON(stdout, stderr, "traces", nonNil(traces))
	}
	if len(traces) == 0 {
		fmt.Fprintf(stdout, "no traces in %s\n", db.Path())
		return 0
	}
	idW, stepsW := len("ID"), len("STEPS")
	for _, ti := range traces {
		idW, stepsW = max(idW, len(strconv.FormatInt(ti.ID, 10))), max(stepsW, len(strconv.Itoa(ti.Length)))
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%*s\tMODEL\tKIND\t%*s\tFOUND\tSEEN\tMESSAGE\n", idW, "ID", stepsW, "STEPS")
	for _, ti := range traces {
		kind, seen := ti.Kind, strconv.Itoa(ti.Seen)
		if kind == "" {
			kind, seen = "walk", "-"
		}
		msg := clip(ti.Message, 60)
		if ti.From != 0 {
			msg = fmt.Sprintf("(%s from %d) %s", ti.How, ti.From, msg)
		}
		fmt.Fprintf(tw, "%*d\t%s\t%s\t%*d\t%s\t%4s\t%s\n", idW, ti.ID, ti.Model, kind, stepsW, ti.Length,
			ti.Found.Local().Format("2006-01-02 15:04:05"), seen, msg)
	}
	tw.Flush()
	return 0
}

func traceShowCommand(args []string, stdout, stderr io.Writer) int {
	f, pos, code, ok := parseDBFlags("trace show", args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return fail(stderr, "trace show", errors.New("give one trace id, e.g. cmcdap trace show 3 (cmcdap traces lists them)"))
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id < 1 {
		return fail(stderr, "trace show", fmt.Errorf("%q is not a trace id: give the number cmcdap traces lists", pos[0]))
	}
	db, err := openTraceDB(f.db, false)
	if err != nil {
		return fail(stderr, "trace show", err)
	}
	defer db.Close()
	t, info, err := db.Trace(id)
	if errors.Is(err, store.ErrNotFound) {
		return fail(stderr, "trace show", fmt.Errorf("no trace %d in %s: cmcdap traces lists them", id, db.Path()))
	}
	if err != nil {
		return fail(stderr, "trace show", err)
	}
	if f.jsonOut {
		return printJSON(stdout, stderr, "trace show", struct {
			Info  store.TraceInfo `json:"info"`
			Trace *engine.Trace   `json:"trace"`
		}{info, t})
	}
	writeTraceHeader(stdout, info, t)
	if err := tracefmt.Write(stdout, t); err != nil {
		return fail(stderr, "trace show", err)
	}
	if err := tracefmt.WriteConversations(stdout, t); err != nil {
		return fail(stderr, "trace show", err)
	}
	return 0
}

// writeTraceHeader says what the trace is before its steps.
func writeTraceHeader(w io.Writer, info store.TraceInfo, t *engine.Trace) {
	fmt.Fprintf(w, "trace %d: %s", info.ID, info.Model)
	if len(t.Params) > 0 {
		keys := make([]string, 0, len(t.Params))
		for k := range t.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + t.Params[k]
		}
		fmt.Fprintf(w, " (%s)", strings.Join(keys, " "))
	}
	steps := "steps"
	if len(t.Steps) == 1 {
		steps = "step"
	}
	fmt.Fprintf(w, ", %d %s, found %s", len(t.Steps), steps, info.Found.Local().Format("2006-01-02 15:04:05"))
	if info.Run != 0 {
		fmt.Fprintf(w, " by run %d", info.Run)
	}
	if info.From != 0 {
		fmt.Fprintf(w, ", %s from trace %d", info.How, info.From)
	}
	fmt.Fprintln(w)
	if v := t.Violation; v != nil {
		fmt.Fprintf(w, "violation: %s", v.Kind)
		if v.Name != "" {
			fmt.Fprintf(w, " %s", v.Name)
		}
		fmt.Fprintf(w, ": %s", v.Message)
		if v.Site != "" {
			fmt.Fprintf(w, " at %s", tracefmt.Base(v.Site))
		}
		fmt.Fprintln(w)
		if info.Seen > 1 {
			fmt.Fprintf(w, "found %d times (signature %s), first as trace %d\n", info.Seen, v.Signature, info.FirstSeen)
		}
	} else {
		fmt.Fprintln(w, "no violation (a kept random walk)")
	}
	fmt.Fprintln(w)
}

func bookmarksCommand(args []string, stdout, stderr io.Writer) int {
	var del, rename, to string
	f, pos, code, ok := parseDBFlags("bookmarks", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&del, "delete", "", "delete the bookmark `name`")
		fs.StringVar(&rename, "rename", "", "rename the bookmark `name` (to the -to name)")
		fs.StringVar(&to, "to", "", "the new `name` of the bookmark -rename names")
	})
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return fail(stderr, "bookmarks", fmt.Errorf("unexpected argument %q", pos[0]))
	}
	switch {
	case del != "" && rename != "":
		return fail(stderr, "bookmarks", errors.New("give -delete or -rename, not both"))
	case (rename != "") != (strings.TrimSpace(to) != ""):
		return fail(stderr, "bookmarks", errors.New("give -rename NAME with -to NEWNAME, e.g. cmcdap bookmarks -rename stale-rerr -to before-fix"))
	}
	db, err := openTraceDB(f.db, del != "" || rename != "")
	if err != nil {
		return fail(stderr, "bookmarks", err)
	}
	defer db.Close()
	switch {
	case del != "":
		if err := db.DeleteBookmark(del); err != nil {
			return fail(stderr, "bookmarks", err)
		}
		fmt.Fprintf(stdout, "deleted bookmark %s\n", del)
		return 0
	case rename != "":
		if err := db.RenameBookmark(rename, strings.TrimSpace(to)); err != nil {
			return fail(stderr, "bookmarks", err)
		}
		fmt.Fprintf(stdout, "renamed bookmark %s to %s\n", rename, strings.TrimSpace(to))
		return 0
	}
	bms, err := db.Bookmarks()
	if err != nil {
		return fail(stderr, "bookmarks", err)
	}
	if f.jsonOut {
		return printJSON(stdout, stderr, "bookmarks", nonNil(bms))
	}
	if len(bms) == 0 {
		fmt.Fprintf(stdout, "no bookmarks in %s\n", db.Path())
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRACE\tSTEP\tCREATED\tNOTE")
	for _, b := range bms {
		fmt.Fprintf(tw, "%s\t%5d\t%4d\t%s\t%s\n", b.Name, b.Trace, b.Step,
			b.Created.Local().Format("2006-01-02 15:04:05"), clip(b.Note, 60))
	}
	tw.Flush()
	return 0
}

func printJSON(stdout, stderr io.Writer, name string, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "A -> B", not "A -\u003e B"
	if err := enc.Encode(v); err != nil {
		return fail(stderr, name, err)
	}
	return 0
}

// nonNil makes an empty list print as [] in JSON.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// clip shortens s to n runes with an ellipsis, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
