package cmc

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A Builder makes a fresh model from parameters.
type Builder func(p *Params) *Model

var registry = map[string]Builder{}

// Register makes a model available by name to cmcdap and to tests, usually from an init function
// of the package that holds the model.
func Register(name string, build Builder) {
	if _, dup := registry[name]; dup {
		panic("cmc.Register: model " + name + " registered twice")
	}
	registry[name] = build
}

// Models lists the registered model names, sorted.
func Models() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Build makes the named model with the given parameters (KEY=VALUE settings as strings). An
// unknown model, a malformed or unknown parameter, or a model that fails to build is an error that
// says what to do.
func Build(name string, params map[string]string) (*Model, error) {
	build, ok := registry[name]
	if !ok {
		if len(registry) == 0 {
			return nil, fmt.Errorf("no models registered: call cmc.Register(name, build) in an init function of the package")
		}
		return nil, fmt.Errorf("unknown model %q; this package has: %s", name, strings.Join(Models(), ", "))
	}
	p := &Params{values: params, used: map[string]bool{}}
	m := build(p)
	if p.err != nil {
		return nil, p.err
	}
	var unknown []string
	for k := range params {
		if !p.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("model %s has no parameter %s; it takes: %s", name, strings.Join(unknown, ", "), strings.Join(p.declared, ", "))
	}
	if m == nil {
		return nil, fmt.Errorf("model %s: its builder returned nil", name)
	}
	return m, nil
}

// Params are a model's parameters, set with -set KEY=VALUE.
type Params struct {
	values   map[string]string
	used     map[string]bool
	declared []string
	err      error
}

// Int returns the integer parameter name, or def when it is not set.
func (p *Params) Int(name string, def int) int {
	p.declare(name, strconv.Itoa(def))
	s, ok := p.values[name]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("parameter %s=%q: want an integer, e.g. -set %s=%d", name, s, name, def)
	}
	return n
}

// Bool returns the boolean parameter name, or def when it is not set.
func (p *Params) Bool(name string, def bool) bool {
	p.declare(name, strconv.FormatBool(def))
	s, ok := p.values[name]
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(s)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("parameter %s=%q: want true or false", name, s)
	}
	return b
}

// Fail reports a parameter the model cannot use (out of range, say); the build fails with it.
func (p *Params) Fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, args...)
	}
}

func (p *Params) declare(name, def string) {
	p.used[name] = true
	d := name + " (default " + def + ")"
	if !slices.Contains(p.declared, d) {
		p.declared = append(p.declared, d)
	}
}
