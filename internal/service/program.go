package service

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cmc-go/cmc/internal/coord"
	"github.com/cmc-go/cmc/worker"
)

// A Package is the user's Go package that registers models.
type Package = coord.Package

// Output receives the model's own output (its stdout and stderr), a line at a time.
type Output = coord.Output

// Prefixed is an Output that writes each line to w, prefixed with its stream.
func Prefixed(w io.Writer) Output { return coord.Prefixed(w) }

// ErrDied is a worker that ended while it served a request (a hang, a crash, the memory limit).
type ErrDied = coord.ErrDied

// ErrBuild marks errors in the user's package.
var ErrBuild = coord.ErrBuild

// Bytes writes a byte count with a binary unit, as -memory takes it.
func Bytes(n int64) string { return worker.Bytes(n) }

// Resolve finds the package a front end names: a directory (relative to cwd) or an import path
// (resolved from cwd). A directory is resolved from inside itself, so a package of another module
// than cwd's is found too.
func Resolve(ctx context.Context, cwd, program string) (*Package, error) {
	dir := program
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return coord.Resolve(ctx, dir, ".")
	}
	return coord.Resolve(ctx, cwd, program)
}

// A Program is the user's package built into a worker binary: user code never runs in cmcdap.
type Program struct {
	Package *Package
	bin     string
	cover   *coord.CoverTarget // built by Cover
	// clusterBin is the worker that also runs a partition (coord.BuildCluster), once built.
	clusterBin string
	extra      string // the packages cover measures besides the user's
}

// Cover builds the worker that measures coverage, of the user's packages and of extra (a
// comma-separated list, as go build -coverpkg takes it), which a check with Settings.Coverage
// runs; Check builds it if this was not called, but a front end that times the check calls it
// first.
func (p *Program) Cover(ctx context.Context, extra string) error {
	if p.cover != nil && p.extra == extra {
		return nil
	}
	var pkgs []string
	for _, e := range strings.Split(extra, ",") {
		if e = strings.TrimSpace(e); e != "" {
			pkgs = append(pkgs, e)
		}
	}
	t, err := coord.BuildCover(ctx, p.Package, pkgs)
	if err != nil {
		return fmt.Errorf("build the worker that measures coverage: %w", err)
	}
	p.cover, p.extra = t, extra
	return nil
}

// Build compiles pkg into a worker (the go build cache makes an unchanged package quick).
func Build(ctx context.Context, pkg *Package) (*Program, error) {
	bin, err := coord.Build(ctx, pkg)
	if err != nil {
		return nil, err
	}
	return &Program{Package: pkg, bin: bin}, nil
}

// Open resolves and builds the package a front end names (see Resolve).
func Open(ctx context.Context, cwd, program string) (*Program, error) {
	pkg, err := Resolve(ctx, cwd, program)
	if err != nil {
		return nil, err
	}
	return Build(ctx, pkg)
}

// Models lists the models the package registers; what its init functions print goes to out.
func (p *Program) Models(ctx context.Context, out Output) ([]string, error) {
	return coord.Models(ctx, p.bin, out)
}

// ChooseModel checks name against the package's models, or picks its only one when name is "".
// The errors are a *ModelError, which a front end phrases in its own words (a flag, an attribute).
func (p *Program) ChooseModel(ctx context.Context, name string, out Output) (string, error) {
	models, err := p.Models(ctx, out)
	if err != nil {
		return "", fmt.Errorf("list the models of %s: %w", p.Package.ImportPath, err)
	}
	switch {
	case len(models) == 0:
		return "", &ModelError{Package: p.Package.ImportPath, Kind: NoModel}
	case name == "" && len(models) == 1:
		return models[0], nil
	case name == "":
		return "", &ModelError{Package: p.Package.ImportPath, Kind: ModelMissing, Models: models}
	case !slices.Contains(models, name):
		return "", &ModelError{Package: p.Package.ImportPath, Kind: ModelUnknown, Models: models, Name: name}
	}
	return name, nil
}

// A ModelErrorKind says why no model could be chosen.
type ModelErrorKind int

const (
	NoModel      ModelErrorKind = iota // the package registers none
	ModelMissing                       // none was named and the package has several
	ModelUnknown                       // the named one is not among them
)

// A ModelError is a model that could not be chosen.
type ModelError struct {
	Package string
	Kind    ModelErrorKind
	Models  []string // the package's models
	Name    string   // the name given
}

func (e *ModelError) Error() string {
	switch e.Kind {
	case NoModel:
		return fmt.Sprintf("package %s defines no model: call cmc.Register(name, build) in an init function", e.Package)
	case ModelMissing:
		return fmt.Sprintf("package %s has several models (%s): choose one", e.Package, strings.Join(e.Models, ", "))
	}
	return fmt.Sprintf("unknown model %q; this package has: %s", e.Name, strings.Join(e.Models, ", "))
}
