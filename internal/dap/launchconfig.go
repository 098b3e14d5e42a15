package dap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
)

// A launchConfig is a cmc launch configuration, checked attribute by attribute: a wrong type
// or value is an error that names the attribute and what it takes (docs/launch.md lists them).
type launchConfig struct {
	Program       string            // the package with the models: a directory or import path
	Model         string            // default: the package's only model
	Params        map[string]string // model parameters, as -set KEY=VALUE
	Search        string            // see service.Searches
	Goal          string            // a scenario to reach
	MaxDepth      int
	MaxStates     int64
	Steps         int     // random: walk length
	Seed          uint64  // random: seed
	Deadline      float64 // seconds a transition may run
	SelfCheck     int64   // transitions to self-check: 0 none, -1 every one
	Coverage      bool    // measure the coverage of the user's code (a worker built with -cover)
	CoverPackages string  // more packages to measure, comma-separated
	Partitions    int     // a partitioned breadth-first search in this many worker processes; 0: one process
	NATS          string  // where the partitions meet; default $CMC_NATS_URL, else a server started on loopback
	DB            string  // trace database; default <module root or cwd>/.cmc/traces.db
	StopOnEntry   bool
	Trace         int64  // open this stored trace instead of checking
	Bookmark      string // check from this bookmarked state
	Cwd           string // relative paths are relative to it (absolute after parsing)
	NoDebug       bool   // run the check, print the outcome, stop
	StepInto      string // code: Step Into runs the step's handler under Delve; choices: stops at its Choose calls
	GoDebugger    string // dlv's path; default: found on PATH or where go install puts it
}

// A LaunchAttr describes one launch attribute. The table LaunchAttrs is the one place that says
// what an attribute takes: parseLaunch reads bounds and defaults from it, and `go generate`
// (internal/gen) writes from it the editor's schema in vscode-extension/package.json, the TypeScript
// type and checks in vscode-extension/src/launchAttrs.gen.ts, and the table in docs/launch.md.
type LaunchAttr struct {
	Name string
	Kind AttrKind
	Min  int64 // KindCount: the least value
	Max  int64 // KindCount: the greatest value
	Enum []string
	// EnumDocs says what each Enum value does (the editor shows it in completions).
	EnumDocs []string
	// Default is what parseLaunch uses when the attribute is absent; nil: none (the zero value).
	Default any
	// DefaultDoc is the default in words, for the docs, when Default does not say it all.
	DefaultDoc string
	// EditorDefault is what the editor inserts when completing the attribute, if not Default.
	EditorDefault any
	// Want is what the value must be, in words, for the editor's errors; empty: from Kind and Min.
	Want string
	Doc  string // for the editor's hover and the docs table: markdown, one paragraph
	// NotInEditor: the editor's schema leaves it out (VS Code sets it itself, or only TCP clients give it).
	NotInEditor bool
}

// An AttrKind is what JSON an attribute takes.
type AttrKind string

const (
	KindString  AttrKind = "string"
	KindBool    AttrKind = "boolean"
	KindCount   AttrKind = "integer" // a whole number in [Min, Max]; a string of digits is taken too
	KindSeconds AttrKind = "number"  // a number above 0
	KindEnum    AttrKind = "enum"    // a string from Enum
	KindParams  AttrKind = "params"  // an object whose values are strings, numbers or booleans
)

// LaunchAttrs are the attributes this adapter reads, in the order the docs list them.
var LaunchAttrs = []LaunchAttr{
	{Name: "program", Kind: KindString, EditorDefault: "${workspaceFolder}",
		Doc: "The package with the models (the one that calls `cmc.Register`): a directory, absolute or relative to `cwd`, or an import path. Required unless `trace` is given; with `trace` it lets `cmc/graph` re-run the trace for its heap graph."},
	{Name: "model", Kind: KindString,
		DefaultDoc: "the package's only model (VS Code asks when there are several; `cmcdap models PKG` lists them)",
		Doc:        "The registered model to check, as given to `cmc.Register`; it may be left out when the package registers one."},
	{Name: "params", Kind: KindParams, EditorDefault: map[string]any{},
		DefaultDoc: "`{}`",
		Doc:        "Model parameters, read by the model with `Params.Int`/`String`/`Bool` (like `cmcdap check -set KEY=VALUE`): values are strings, numbers or booleans, e.g. `{\"nodes\": 3, \"bug\": true}`."},
	{Name: "search", Kind: KindEnum, Default: "bfs", Enum: service.Searches,
		EnumDocs: []string{"Breadth-first: finds the shortest counterexample.", "Depth-first: less memory, longer traces.", "Random walks of `steps` steps from `seed`.",
			"Best-first: the states the model's `Score` ranks highest first (else the least often seen `Abstract` state, else the most new values); with `goal`, the best progress towards it first.",
			"Iterative deepening: depth-first searches bounded at 1, 2, 3... steps; the shortest counterexample, with depth-first memory.",
			"Swarm: 8 randomised depth-first searches from `seed`, each with a share of `maxStates`; each distinct violation is reported once."},
		Doc: "Search strategy: bfs finds the shortest counterexample; best follows the model's score (docs/search.md)."},
	{Name: "goal", Kind: KindString,
		Doc: "A scenario of the model (`m.Sometimes`): the check stops at the first state that reaches it and shows the trace there; `best` search follows its progress."},
	{Name: "maxDepth", Kind: KindCount, Min: 0, Max: math.MaxInt32, EditorDefault: int64(0), DefaultDoc: "0 (none)",
		Doc: "Depth bound: do not explore beyond this many steps (0: no bound)."},
	{Name: "maxStates", Kind: KindCount, Min: 0, Max: math.MaxInt64, EditorDefault: int64(0), DefaultDoc: "0 (none)",
		Doc: "Stop after this many distinct states (0: no bound)."},
	{Name: "steps", Kind: KindCount, Min: 1, Max: math.MaxInt32, Default: int64(10000),
		Doc: "Random search: the length of each walk."},
	{Name: "seed", Kind: KindCount, Min: 0, Max: math.MaxInt64, Default: int64(1),
		Doc: "Random and swarm search: the seed (the same seed gives the same walk, the same swarm)."},
	{Name: "deadline", Kind: KindSeconds, Default: 10.0,
		Want: "seconds a transition may run: a number above 0",
		Doc:  "Seconds one transition may run before it is reported as a hang (a finding with a trace)."},
	{Name: "selfCheck", Kind: KindCount, Min: -1, Max: math.MaxInt64, Default: int64(engine.DefaultSelfCheck),
		Want: "how many transitions to self-check: a whole number, 0 for none, -1 for every one",
		Doc:  "How many transitions (the first ones) to self-check: the next event runs on the live objects and on restored copies, and any difference is a capture fault or nondeterminism. 0: none, -1: every transition (`-selfcheck` on the command line)."},
	{Name: "coverage", Kind: KindBool, Default: false,
		Doc: "Measure the line coverage of the package's code during the check (a worker built with `go build -cover`; slower, see docs/search.md): the debug console prints it by file and handler, it is stored with the run, and **CMC: Show Coverage** shows it in the editor (`-cover` on the command line)."},
	{Name: "coverPackages", Kind: KindString,
		Doc: "With `coverage`, more packages to measure besides the package's own module: comma-separated import paths or patterns, as `go build -coverpkg` takes them, e.g. the protocol library a model checks (`go.etcd.io/raft/v3`; `-coverpkg` on the command line)."},
	{Name: "partitions", Kind: KindCount, Min: 0, Max: 1024, EditorDefault: int64(2), DefaultDoc: "0 (one process)",
		Doc: "Check in this many worker processes, each owning the states whose fingerprints fall in its partition, which exchange states over NATS (`-partitions` on the command line; docs/cluster.md): a breadth-first search with the one-process check's counts, whose progress shows each partition's share. 0: one process. Not with another `search`, `goal`, `bookmark` or `coverage`."},
	{Name: "nats", Kind: KindString,
		DefaultDoc: "`$CMC_NATS_URL`, else a NATS server cmcdap starts on loopback for the run, with a random token",
		Doc:        "With `partitions`, the NATS server the partitions meet at, as `nats://HOST:PORT` (`-nats` on the command line). Its credentials come only from cmcdap's environment (`CMC_NATS_TOKEN`, `CMC_NATS_USER` and `CMC_NATS_PASSWORD`, or `CMC_NATS_CREDS`), never from launch.json: the URL must not hold a password."},
	{Name: "stepInto", Kind: KindEnum, Default: "code", Enum: []string{"code", "choices"},
		EnumDocs: []string{"Run the step's handler under Delve, the Go debugger, and stop at its first line: the real call stack, locals, line stepping and breakpoints in the protocol code.", "Stop at each `Choose` call of the step, without running code."},
		Doc:      "What Step Into does at a step of the trace. `code` needs Delve (`go install github.com/go-delve/delve/cmd/dlv@latest`) and `program`; without them it does what `choices` does, and says why."},
	{Name: "goDebugger", Kind: KindString, DefaultDoc: "`dlv` on `PATH`, else in `$(go env GOBIN)` or `$(go env GOPATH)/bin`",
		Doc: "The path of Delve's `dlv`, for `stepInto` `code`."},
	{Name: "token", Kind: KindString, NotInEditor: true,
		Doc: "With `cmcdap dap -listen`: the token it printed (see above)."},
	{Name: "db", Kind: KindString,
		DefaultDoc: "`<module root of program, or cwd>/.cmc/traces.db` (VS Code: the `cmc.db` setting, else the workspace folder's module root)",
		Doc:        "The trace database: an SQLite file, or a PostgreSQL database as `postgres://USER@HOST:PORT/DATABASE` (the password from `PGPASSWORD` or `~/.pgpass`; see docs/cluster.md)."},
	{Name: "stopOnEntry", Kind: KindBool, Default: false,
		Doc: "Stop at the initial state before checking, or, with `trace`, at step 0, instead of at the violation."},
	{Name: "trace", Kind: KindCount, Min: 1, Max: math.MaxInt64,
		Want: "a stored trace id, 1 or more: see the CMC Traces view or `cmcdap traces`",
		Doc:  "Open this stored trace (an id from the CMC Traces view or `cmcdap traces`) instead of checking."},
	{Name: "bookmark", Kind: KindString,
		Doc: "Check from this bookmarked state instead of the initial state (after changing the code, to see the violation gone); `model` and `params` default to the bookmarked trace's, and another model of the program (a fixed variant, as `AODV` is of `AODVSpecBug`) may start there too: its steps are replayed in it."},
	{Name: "cwd", Kind: KindString, EditorDefault: "${workspaceFolder}", DefaultDoc: "the adapter's directory (VS Code: the workspace folder)",
		Doc: "What relative paths are relative to."},
	{Name: "noDebug", Kind: KindBool, Default: false, NotInEditor: true,
		Doc: "Check, print the outcome, end (VS Code sets it for Run Without Debugging)."},
}

// launchAttr returns the table's entry for name; a name not in the table is a bug in this file.
func launchAttr(name string) LaunchAttr {
	for _, a := range LaunchAttrs {
		if a.Name == name {
			return a
		}
	}
	panic("launch attribute " + name + " is not in LaunchAttrs")
}

// clientAttrs are the attributes VS Code and other clients add, which the adapter ignores
// without a warning.
var clientAttrs = map[string]bool{"type": true, "request": true, "name": true, "preLaunchTask": true,
	"postDebugTask": true, "internalConsoleOptions": true, "debugServer": true, "presentation": true,
	"env": true, "console": true, "showLog": true, "logFile": true}

// parseLaunch reads a launch request's arguments. dir resolves relative paths when the
// configuration gives no cwd. Unknown attributes are returned as warnings.
func parseLaunch(raw json.RawMessage, dir string) (*launchConfig, []string, error) {
	var attrs map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, &attrs); err != nil || attrs == nil {
		return nil, nil, fmt.Errorf("launch: the arguments must be a JSON object")
	}
	c := &launchConfig{}
	p := attrParser{attrs: attrs}
	p.str("program", &c.Program)
	p.str("model", &c.Model)
	p.params(&c.Params)
	p.oneOf("search", &c.Search)
	p.str("goal", &c.Goal)
	c.MaxDepth = int(p.count("maxDepth"))
	c.MaxStates = p.count("maxStates")
	c.Steps = int(p.count("steps"))
	c.Seed = uint64(p.count("seed"))
	p.positive("deadline", &c.Deadline)
	c.SelfCheck = p.count("selfCheck")
	p.boolean("coverage", &c.Coverage)
	p.str("coverPackages", &c.CoverPackages)
	c.Partitions = int(p.count("partitions"))
	p.str("nats", &c.NATS)
	p.str("db", &c.DB)
	p.boolean("stopOnEntry", &c.StopOnEntry)
	p.boolean("noDebug", &c.NoDebug)
	c.Trace = p.count("trace")
	p.str("bookmark", &c.Bookmark)
	p.str("cwd", &c.Cwd)
	p.oneOf("stepInto", &c.StepInto)
	p.str("goDebugger", &c.GoDebugger)
	if p.err != nil {
		return nil, nil, p.err
	}
	switch {
	case c.Trace != 0 && c.Bookmark != "":
		return nil, nil, fmt.Errorf(`launch: give "trace" (open a stored trace) or "bookmark" (check from a bookmarked state), not both`)
	case c.Trace == 0 && c.Program == "":
		return nil, nil, fmt.Errorf(`launch: "program" is missing: give the package directory with the models, e.g. "${workspaceFolder}/examples/aodv", or "trace" to open a stored trace`)
	}
	if err := c.partitionable(); err != nil {
		return nil, nil, err
	}
	if c.Cwd == "" {
		c.Cwd = dir
	} else {
		c.Cwd = abs(dir, c.Cwd)
	}
	if c.DB != "" && !store.IsURL(c.DB) {
		c.DB = abs(c.Cwd, c.DB)
	}
	return c, unknownAttrs(attrs), nil
}

func abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// unknownAttrs warns about attributes nobody reads, with the nearest known one.
func unknownAttrs(attrs map[string]json.RawMessage) []string {
	known := make([]string, len(LaunchAttrs))
	for i, a := range LaunchAttrs {
		known[i] = a.Name
	}
	var out []string
	for k := range attrs {
		if clientAttrs[k] || strings.HasPrefix(k, "__") || contains(known, k) {
			continue
		}
		msg := fmt.Sprintf("launch: unknown attribute %q is ignored", k)
		if near := nearest(k, known); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		out = append(out, msg)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// nearest returns the word of list within two edits of s, if one is.
func nearest(s string, list []string) string {
	best, bestD := "", 3
	for _, w := range list {
		if d := editDistance(strings.ToLower(s), strings.ToLower(w)); d < bestD {
			best, bestD = w, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// attrParser reads attributes, keeping the first error.
type attrParser struct {
	attrs map[string]json.RawMessage
	err   error
}

func (p *attrParser) fail(name, want string, v json.RawMessage) {
	if p.err == nil {
		p.err = fmt.Errorf("launch: %q must be %s, not %s", name, want, bytes.TrimSpace(v))
	}
}

func (p *attrParser) get(name string) (json.RawMessage, bool) {
	v, ok := p.attrs[name]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil, false
	}
	return v, true
}

func (p *attrParser) str(name string, dst *string) {
	launchAttr(name) // only attributes of the table
	if v, ok := p.get(name); ok && json.Unmarshal(v, dst) != nil {
		p.fail(name, "a string", v)
	}
}

func (p *attrParser) boolean(name string, dst *bool) {
	if d, ok := launchAttr(name).Default.(bool); ok {
		*dst = d
	}
	if v, ok := p.get(name); ok && json.Unmarshal(v, dst) != nil {
		p.fail(name, "true or false", v)
	}
}

func (p *attrParser) oneOf(name string, dst *string) {
	a := launchAttr(name)
	allowed := a.Enum
	if d, ok := a.Default.(string); ok {
		*dst = d
	}
	v, ok := p.get(name)
	if !ok {
		return
	}
	var s string
	if json.Unmarshal(v, &s) != nil || !contains(allowed, s) {
		p.fail(name, "one of "+strings.Join(allowed, ", "), v)
		return
	}
	*dst = s
}

// count reads a whole number in the attribute's [Min, Max]; a string of digits is taken too,
// since VS Code's ${input:...} variables are strings. It returns the default (or 0) when the
// attribute is absent.
func (p *attrParser) count(name string) int64 {
	a := launchAttr(name)
	lo, hi := a.Min, a.Max
	v, ok := p.get(name)
	if !ok {
		d, _ := a.Default.(int64)
		return d
	}
	var n json.Number
	var s string
	switch {
	case json.Unmarshal(v, &n) == nil:
	case json.Unmarshal(v, &s) == nil:
		n = json.Number(strings.TrimSpace(s))
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || i < lo || i > hi {
		want := fmt.Sprintf("a whole number from %d", lo)
		if hi < math.MaxInt32+1 {
			want += fmt.Sprintf(" to %d", hi)
		} else {
			want += " up"
		}
		p.fail(name, want, v)
		return 0
	}
	return i
}

func (p *attrParser) positive(name string, dst *float64) {
	if d, ok := launchAttr(name).Default.(float64); ok {
		*dst = d
	}
	v, ok := p.get(name)
	if !ok {
		return
	}
	var f float64
	if json.Unmarshal(v, &f) != nil || f <= 0 {
		p.fail(name, "a number of seconds above 0", v)
		return
	}
	*dst = f
}

// params reads the model parameters: an object whose values are strings, numbers or booleans.
func (p *attrParser) params(dst *map[string]string) {
	launchAttr("params")
	v, ok := p.get("params")
	if !ok {
		return
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if d.Decode(&m) != nil || m == nil {
		p.fail("params", `an object of model parameters, e.g. {"nodes": 3}`, v)
		return
	}
	out := map[string]string{}
	for _, k := range sortedKeys(m) {
		switch x := m[k].(type) {
		case string:
			out[k] = x
		case json.Number:
			out[k] = x.String()
		case bool:
			out[k] = strconv.FormatBool(x)
		default:
			b, _ := json.Marshal(x)
			p.fail(fmt.Sprintf("params.%s", k), "a string, number or boolean", b)
			return
		}
	}
	*dst = out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
