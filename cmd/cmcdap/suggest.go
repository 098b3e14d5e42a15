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

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/tracefmt"
)

// cmcdap suggest PKG walks a model at random and suggests the fields to leave out of its state
// (counters, statistics, timestamps), with the evidence (engine.SuggestOmissions, thesis 3.5).
func init() {
	commands["suggest"] = command{run: suggestCommand,
		usage: "suggest fields to leave out of the state (counters, statistics): suggest [-model NAME] [-set K=V]... [-steps N] [-seed N] [-json] PKG"}
}

func suggestCommand(args []string, stdout, stderr io.Writer) int {
	params := settings{}
	var model string
	var steps int
	var seed uint64
	var jsonOut bool
	fs := flag.NewFlagSet("suggest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&model, "model", "", "model `name` (default: the package's only model)")
	fs.Var(params, "set", "model parameter `KEY=VALUE` (repeatable)")
	fs.IntVar(&steps, "steps", 2000, "length of the random walk that watches the fields")
	fs.Uint64Var(&seed, "seed", 1, "the walk's seed")
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(stderr, "suggest", err)
	}
	if len(pos) != 1 {
		return fail(stderr, "suggest", errors.New("give one package, e.g. cmcdap suggest ./examples/aodv"))
	}
	if err := atLeast("steps", steps, 1, "the length of the walk"); err != nil {
		return fail(stderr, "suggest", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	prog, err := service.Open(ctx, ".", pos[0])
	if err != nil {
		return fail(stderr, "suggest", err)
	}
	c := &service.Check{Model: model, Params: params}
	if c.Model, err = prog.ChooseModel(ctx, c.Model, service.Prefixed(stderr)); err != nil {
		return fail(stderr, "suggest", err)
	}
	sl, err := prog.Suggest(ctx, c, steps, seed)
	if err != nil {
		return fail(stderr, "suggest", err)
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(sl)
		return 0
	}
	writeSlicing(stdout, c, sl)
	return 0
}

// writeSlicing prints the suggestions and the counters kept, each with its evidence.
func writeSlicing(w io.Writer, c *service.Check, sl *engine.Slicing) {
	fmt.Fprintf(w, "walked %s%s for %s steps (seed %d), watching %d integer fields\n", c.Model, tracefmt.Params(c.Params), tracefmt.Thousands(int64(sl.Steps)), sl.Seed, sl.Examined)
	section := func(title string, list []engine.Suggestion) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintln(w, title)
		for _, s := range list {
			vals := make([]string, len(s.Values))
			for i, v := range s.Values {
				vals[i] = fmt.Sprint(v)
			}
			more := ""
			if s.Distinct > len(s.Values) {
				more = ", …"
			}
			fmt.Fprintf(w, "  %s: %s\n", s.FieldRef, s.Why)
			fmt.Fprintf(w, "    values seen: %s%s (%d distinct, in %d instances)\n", strings.Join(vals, ", "), more, s.Distinct, s.Instances)
			if s.Code != "" {
				fmt.Fprintf(w, "    to leave it out, add to the model: %s\n", s.Code)
			}
		}
	}
	section("suggested: leave out of the state", sl.Suggest)
	section("kept: they grow like counters, but the model reads them (bound them with m.Bound instead)", sl.Kept)
	if len(sl.Suggest) == 0 && len(sl.Kept) == 0 {
		fmt.Fprintln(w, "no field grew like a counter on this walk")
	}
	if len(sl.Suggest) > 0 {
		fmt.Fprintln(w, "nothing is left out unless you add the line to the model")
	}
}
