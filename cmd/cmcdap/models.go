package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cmc-go/cmc/internal/coord"
)

// The models command lists what a package registers, so an editor can offer a choice when a
// launch names no model (VS Code's F5 on a package with two).
func init() {
	commands["models"] = command{run: func(args []string) int { return modelsCommand(context.Background(), args, os.Stdout, os.Stderr) },
		usage: "list the models a package registers: models [-json] [PKG]"}
}

func modelsCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print a JSON array of names")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	pkgPath := "."
	switch fs.NArg() {
	case 0:
	case 1:
		pkgPath = fs.Arg(0)
	default:
		fmt.Fprintln(stderr, "cmcdap models: give one package (a directory or import path)")
		return 2
	}
	models, err := packageModels(ctx, pkgPath)
	if err != nil {
		fmt.Fprintln(stderr, "cmcdap models: "+err.Error())
		return 2
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
	pkg, err := coord.Resolve(ctx, ".", pkgPath)
	if err != nil {
		return nil, err
	}
	bin, err := coord.Build(ctx, pkg)
	if err != nil {
		return nil, err
	}
	return coord.Models(ctx, bin, nil)
}
