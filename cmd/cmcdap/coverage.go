package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
)

// cmcdap coverage RUN prints what a stored run exercised: the coverage of the user's code by
// file and handler and its growth (a check with -cover), each event's runs and the branching.
func init() {
	commands["coverage"] = command{run: coverageCommand,
		usage: "print what a stored run exercised (its coverage with check -cover): coverage [-db FILE] [-json] RUN|latest"}
}

func coverageCommand(args []string, stdout, stderr io.Writer) int {
	f, pos, code, ok := parseDBFlags("coverage", args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return fail(stderr, "coverage", errors.New("give one run id, e.g. cmcdap coverage 3, or latest: the last run checked with -cover"))
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if pos[0] != "latest" && (err != nil || id <= 0) {
		return fail(stderr, "coverage", fmt.Errorf("run %q: want a run id, a positive number, or latest", pos[0]))
	}
	db, err := openTraceDB(f.db, false)
	if err != nil {
		return fail(stderr, "coverage", err)
	}
	defer db.Close()
	if pos[0] == "latest" {
		if id, err = db.LatestCoverage(); err != nil {
			return fail(stderr, "coverage", err)
		}
	}
	c, err := db.Coverage(id)
	if err != nil {
		return fail(stderr, "coverage", err)
	}
	if f.jsonOut {
		out := struct {
			Branching float64 `json:"branching"`
			*store.RunCoverage
		}{c.Branching(), c}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return 0
	}
	wd, _ := os.Getwd()
	e := tracefmt.Exercised{Transitions: c.Transitions, Expanded: c.Expanded, Events: c.Events, Root: wd}
	if c.Measured {
		e.Coverage = &c.Coverage
	}
	fmt.Fprintf(stdout, "run %d: %s transitions\n", id, tracefmt.Thousands(c.Transitions))
	tracefmt.WriteExercised(stdout, e)
	return 0
}
