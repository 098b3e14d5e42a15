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

	"github.com/cmc-go/cmc/conform"
	"github.com/cmc-go/cmc/internal/service"
)

// Conformance of recorded behaviour: a log of a real run checked against a model's
// specification, without model checking.
func init() {
	commands["conform"] = command{run: conformCommand,
		usage: "check a JSON-lines log (or an ITF trace, *.itf.json) against a model's specification: conform [-model NAME] [-set K=V]... [-spec NAME] [-itf-vars E,A,S] [-json] PKG LOG"}
}

func conformCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "the model that declares the specification (default: the package's only model)")
	spec := fs.String("spec", "", "the specification, by name (default: the model's only one)")
	jsonOut := fs.Bool("json", false, "print the outcome as one JSON object")
	itfVars := fs.String("itf-vars", "event,actions,state", "an ITF trace's variables holding the event, the actions and the spec state (a LOG named *.itf.json is ITF)")
	params := settings{}
	fs.Var(params, "set", "model parameter `KEY=VALUE` (repeatable)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(stderr, "conform", err)
	}
	if len(pos) != 2 {
		return fail(stderr, "conform", errors.New("give a package and a log file, e.g. cmcdap conform -spec ppp0 ./examples/ppp run.jsonl"))
	}
	log, err := os.ReadFile(pos[1])
	if err != nil {
		return fail(stderr, "conform", fmt.Errorf("read log: %w", err))
	}
	var itf *conform.ITFNames
	if strings.HasSuffix(pos[1], ".itf.json") {
		v := strings.Split(*itfVars, ",")
		if len(v) != 3 {
			return fail(stderr, "conform", fmt.Errorf("-itf-vars %q: give three variable names, EVENT,ACTIONS,STATE", *itfVars))
		}
		itf = &conform.ITFNames{Event: v[0], Actions: v[1], State: v[2]}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	prog, err := service.Open(ctx, ".", pos[0])
	if err != nil {
		return fail(stderr, "conform", err)
	}
	name, err := prog.ChooseModel(ctx, *model, service.Prefixed(stderr))
	if err != nil {
		var me *service.ModelError
		if errors.As(err, &me) && me.Kind == service.ModelMissing {
			err = fmt.Errorf("package %s has several models (%s): choose one with -model", me.Package, strings.Join(me.Models, ", "))
		}
		return fail(stderr, "conform", err)
	}
	rep, err := prog.Conform(ctx, name, params, *spec, string(log), itf)
	if err != nil {
		return fail(stderr, "conform", err)
	}
	code := 0
	if rep.Line > 0 {
		code = 1
	}
	if *jsonOut {
		json.NewEncoder(stdout).Encode(rep)
		return code
	}
	if rep.Line > 0 {
		fmt.Fprintf(stdout, "%s: %s does not conform to spec %s of model %s: %s\n(%d steps before it conform)\n", pos[1], rep.Where, rep.Spec, name, rep.Message, rep.Conformed)
		return code
	}
	fmt.Fprintf(stdout, "%s: all %d steps conform to spec %s of model %s\n", pos[1], rep.Steps, rep.Spec, name)
	return 0
}
