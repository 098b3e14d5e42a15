// Package layers states the architecture as data: which packages form which layer, and which
// dependencies each layer must not have. Its test checks the real import graph against it, so a
// lower layer that starts to import a higher one (the engine SQLite, the store DAP) fails `make
// vet` and CI instead of being noticed in review. README.md and docs/architecture.md describe the
// same table for people.
package layers

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the module path; patterns below are relative to it unless they name the standard library.
const Module = "github.com/cmc-go/cmc"

// A Layer is a set of packages with the same place in the dependency order.
type Layer struct {
	Name     string
	Packages []string // module-relative patterns: "engine", "cmd/..." (the folder and below), "." (the root)
}

// Layers lists every package of the module, lowest layer first. A new package must be placed here.
var Layers = []Layer{
	{"api", []string{".", "env"}},
	{"core", []string{"canon", "engine", "replay", "tracefmt", "cmctest", "conform",
		"internal/transition", "internal/faults", "internal/stackdump"}},
	{"peers", []string{"env/peer"}},
	{"worker", []string{"worker"}},
	{"cluster", []string{"cluster"}},
	{"store", []string{"store", "store/pgtest"}},
	{"coordinator", []string{"internal/coord"}},
	{"service", []string{"internal/service"}},
	{"front end", []string{"cmd/...", "internal/dap/...", "internal/views", "internal/loopback", "internal/gen", "internal/broker", "internal/natsrun", "webview"}},
	{"models and test programs", []string{"examples/...", "test/...", "bench/..."}},
	{"checks", []string{"internal/layers"}},
}

// A Rule forbids the packages From to depend on any package matching Not.
type Rule struct {
	From []string
	Not  []string // module-relative patterns, or "std:net/http" for a standard-library package
	// Direct restricts the rule to direct imports; otherwise any dependency, however indirect, counts.
	Direct bool
	Why    string
	// Allow lists today's offenders, each with the reason it may still offend. An entry that no
	// longer offends is an error, so the rule tightens as the offenders are fixed.
	Allow map[string]string
}

// Rules are the dependencies the layers must not have.
var Rules = []Rule{
	{
		From: []string{".", "env", "canon", "engine", "replay", "tracefmt", "cmctest", "conform",
			"internal/transition", "internal/faults", "internal/stackdump"},
		Not: []string{"store", "worker", "internal/coord", "internal/dap/...", "internal/views", "cmd/...",
			"std:net", "std:net/http", "std:database/sql"},
		Why: "the model API and the engine know nothing of storage, processes, DAP or HTTP: they are linked into every user's worker binary and cmctest run",
	},
	{
		From: []string{"env/peer"},
		Not: []string{"store", "worker", "internal/coord", "internal/dap/...", "internal/views", "cmd/...",
			"std:net/http", "std:database/sql"},
		Why: "env/peer is the I/O cache's reach to real processes (net, os/exec), linked into a user's worker like env: it knows nothing of storage, workers or front ends",
	},
	{
		From: []string{"worker"},
		Not: []string{"store", "internal/coord", "internal/dap/...", "internal/views", "cmd/...",
			"std:net", "std:net/http", "std:database/sql"},
		Why: "the worker runs inside the user's program and talks only over its pipe",
	},
	{
		From: []string{"cluster"},
		Not: []string{"store", "internal/coord", "internal/broker", "internal/natsrun", "internal/dap/...", "internal/views", "cmd/...",
			"std:database/sql"},
		Why: "cluster is linked into a partition's worker binary: it talks NATS (the client only, which brings net/http for websockets; the embedded server is internal/broker's, in cmcdap) and knows nothing of storage or front ends",
	},
	{
		From: []string{"store"},
		Not:  []string{"worker", "internal/coord", "internal/dap/...", "internal/views", "cmd/...", "std:net/http"},
		Why:  "the store is the database layer (SQLite or PostgreSQL: database/sql is its business) and serves every front end alike",
	},
	{
		From: []string{"internal/coord"},
		Not:  []string{"store", "internal/dap/...", "internal/views", "cmd/...", "std:net/http", "std:database/sql"},
		Why:  "the coordinator drives workers; what is stored and shown is its callers' business",
	},
	{
		From: []string{"internal/dap"},
		Not:  []string{"internal/views"},
		Why:  "the DAP session and the views are peer front ends; cmd/cmcdap wires them together",
	},
	{
		From: []string{"internal/views"},
		Not:  []string{"internal/dap/..."},
		Why:  "the DAP session and the views are peer front ends; cmd/cmcdap wires them together",
	},
	{
		From:   []string{"cmd/...", "internal/dap/...", "internal/views"},
		Not:    []string{"worker"},
		Direct: true,
		Why:    "front ends reach workers through internal/service, whose coordinator owns the worker's wire types",
	},
	{
		From:   []string{"cmd/...", "internal/dap/...", "internal/views"},
		Not:    []string{"internal/coord"},
		Direct: true,
		Why:    "front ends check, replay and minimize through the one facade, internal/service",
	},
	{
		From: []string{"internal/service"},
		Not:  []string{"internal/dap/...", "internal/views", "cmd/...", "std:net/http"},
		Why:  "the facade serves every front end alike and knows none of them",
	},
}

// A Package is what the check needs of one package: its imports, direct and all.
type Package struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// match reports whether the import path p matches a pattern.
func match(pattern, p string) bool {
	if std, ok := strings.CutPrefix(pattern, "std:"); ok {
		return p == std
	}
	if pattern == "." {
		return p == Module
	}
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		full := Module + "/" + dir
		return p == full || strings.HasPrefix(p, full+"/")
	}
	return p == Module+"/"+pattern
}

func matchAny(patterns []string, p string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool { return match(pat, p) })
}

// rel is p relative to the module, for messages.
func rel(p string) string {
	if p == Module {
		return "."
	}
	return strings.TrimPrefix(p, Module+"/")
}

// Check returns one line per broken rule, per package not placed in a layer, and per allowlist
// entry that no longer offends. pkgs holds the module's packages and all their dependencies.
func Check(pkgs []Package) []string {
	byPath := map[string]*Package{}
	for i := range pkgs {
		byPath[pkgs[i].ImportPath] = &pkgs[i]
	}
	var problems []string
	for _, p := range pkgs {
		if p.ImportPath != Module && !strings.HasPrefix(p.ImportPath, Module+"/") {
			continue
		}
		if !slices.ContainsFunc(Layers, func(l Layer) bool { return matchAny(l.Packages, p.ImportPath) }) {
			problems = append(problems, fmt.Sprintf("%s is in no layer: add it to Layers in internal/layers/layers.go, and to the table in README.md", rel(p.ImportPath)))
		}
	}
	for _, r := range Rules {
		offenders := map[string]bool{}
		for _, p := range pkgs {
			if !matchAny(r.From, p.ImportPath) {
				continue
			}
			deps := p.Deps
			if r.Direct {
				deps = p.Imports
			}
			for _, d := range deps {
				if !matchAny(r.Not, d) {
					continue
				}
				from := rel(p.ImportPath)
				offenders[from] = true
				if _, ok := r.Allow[from]; ok {
					continue
				}
				how := "imports"
				if chain := path(byPath, p.ImportPath, d); len(chain) > 2 {
					how = "depends (" + strings.Join(mapRel(chain), " -> ") + ") on"
				}
				problems = append(problems, fmt.Sprintf("%s %s %s: %s", from, how, rel(d), r.Why))
			}
		}
		for from := range r.Allow {
			if !offenders[from] {
				problems = append(problems, fmt.Sprintf("%s no longer breaks the rule %q: delete it from that rule's Allow in internal/layers/layers.go, so the rule holds from now on", from, r.Why))
			}
		}
	}
	slices.Sort(problems)
	return problems
}

// path is a shortest import chain from a to b, for a message that says how a dependency came in.
func path(byPath map[string]*Package, a, b string) []string {
	prev := map[string]string{a: ""}
	queue := []string{a}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == b {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		if pkg := byPath[p]; pkg != nil {
			for _, q := range pkg.Imports {
				if _, seen := prev[q]; !seen {
					prev[q] = p
					queue = append(queue, q)
				}
			}
		}
	}
	return nil
}

func mapRel(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = rel(p)
	}
	return out
}
