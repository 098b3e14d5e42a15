package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/cmc-go/cmc/internal/service"
)

// The models command lists what a package registers, so an editor can offer a choice when a
// launch names no model (VS Code's F5 on a package with two).
func init() {
	commands["models"] = command{run: func(args []string, stdout, stderr io.Writer) int {
		return modelsCommand(context.Background(), args, stdout, stderr)
	},
		usage: "list the models a package registers: models [-json] [PKG]"}
}

func modelsCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print a JSON array of names")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(stderr, "models", err)
	}
	pkgPath := "."
	switch len(pos) {
	case 0:
	case 1:
		pkgPath = pos[0]
	default:
		return fail(stderr, "models", errors.New("give one package (a directory or import path), e.g. cmcdap models ./examples/aodv"))
	}
	models, err := packageModels(ctx, pkgPath)
	if err != nil {
		return fail(stderr, "models", err)
	}
	if len(models) == 0 && !*jsonOut {
		return fail(stderr, "models", fmt.Errorf("package %s registers no models: call cmc.Register(name, build) in an init function", pkgPath))
	}
	if *jsonOut {
		if models == nil {
			models = []string{}
		}
		json.NewEncoder(stdout).Encode(models)
		return 0
	}
	for _, m := range models {
		fmt.Fprintln(stdout, m)
	}
	return 0
}

// packageModels builds the package's worker and asks it for its models.
func packageModels(ctx context.Context, pkgPath string) ([]string, error) {
	prog, err := service.Open(ctx, ".", pkgPath)
	if err != nil {
		return nil, err
	}
	return prog.Models(ctx, nil)
}
