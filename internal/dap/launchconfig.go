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
)

// A launchConfig is a cmc launch configuration, checked attribute by attribute: a wrong type
// or value is an error that names the attribute and what it takes (docs/launch.md lists them).
type launchConfig struct {
	Program     string            // the package with the models: a directory or import path
	Model       string            // default: the package's only model
	Params      map[string]string // model parameters, as -set KEY=VALUE
	Search      string            // bfs, dfs or random
	MaxDepth    int
	MaxStates   int64
	Steps       int     // random: walk length
	Seed        uint64  // random: seed
	Deadline    float64 // seconds a transition may run
	SelfCheck   int64   // transitions to self-check: 0 none, -1 every one
	DB          string  // trace database; default <module root or cwd>/.cmc/traces.db
	StopOnEntry bool
	Trace       int64  // open this stored trace instead of checking
	Bookmark    string // check from this bookmarked state
	Cwd         string // relative paths are relative to it (absolute after parsing)
	NoDebug     bool   // run the check, print the outcome, stop
}

// launchAttrs are the attributes this adapter reads; clientAttrs are those VS Code and other
// clients add, which it ignores without a warning.
var (
	launchAttrs = []string{"program", "model", "params", "search", "maxDepth", "maxStates", "steps",
		"seed", "deadline", "selfCheck", "db", "stopOnEntry", "trace", "bookmark", "cwd", "noDebug", "token"}
	clientAttrs = map[string]bool{"type": true, "request": true, "name": true, "preLaunchTask": true,
		"postDebugTask": true, "internalConsoleOptions": true, "debugServer": true, "presentation": true,
		"env": true, "console": true, "showLog": true, "logFile": true}
)

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
	c := &launchConfig{Search: "bfs", Steps: 10000, Seed: 1, Deadline: 10, SelfCheck: engine.DefaultSelfCheck}
	p := attrParser{attrs: attrs}
	p.str("program", &c.Program)
	p.str("model", &c.Model)
	p.params(&c.Params)
	p.oneOf("search", &c.Search, "bfs", "dfs", "random")
	c.MaxDepth = int(p.count("maxDepth", 0, math.MaxInt32))
	c.MaxStates = p.count("maxStates", 0, math.MaxInt64)
	c.Steps = int(p.count("steps", 1, math.MaxInt32, int64(c.Steps)))
	c.Seed = uint64(p.count("seed", 0, math.MaxInt64, int64(c.Seed)))
	p.positive("deadline", &c.Deadline)
	c.SelfCheck = p.count("selfCheck", -1, math.MaxInt64, c.SelfCheck)
	p.str("db", &c.DB)
	p.boolean("stopOnEntry", &c.StopOnEntry)
	p.boolean("noDebug", &c.NoDebug)
	c.Trace = p.count("trace", 1, math.MaxInt64)
	p.str("bookmark", &c.Bookmark)
	p.str("cwd", &c.Cwd)
	if p.err != nil {
		return nil, nil, p.err
	}
	switch {
	case c.Trace != 0 && c.Bookmark != "":
		return nil, nil, fmt.Errorf(`launch: give "trace" (open a stored trace) or "bookmark" (check from a bookmarked state), not both`)
	case c.Trace == 0 && c.Program == "":
		return nil, nil, fmt.Errorf(`launch: "program" is missing: give the package directory with the models, e.g. "${workspaceFolder}/examples/aodv", or "trace" to open a stored trace`)
	}
	if c.Cwd == "" {
		c.Cwd = dir
	} else {
		c.Cwd = abs(dir, c.Cwd)
	}
	if c.DB != "" {
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
	var out []string
	for k := range attrs {
		if clientAttrs[k] || strings.HasPrefix(k, "__") || contains(launchAttrs, k) {
			continue
		}
		msg := fmt.Sprintf("launch: unknown attribute %q is ignored", k)
		if near := nearest(k, launchAttrs); near != "" {
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
	if v, ok := p.get(name); ok && json.Unmarshal(v, dst) != nil {
		p.fail(name, "a string", v)
	}
}

func (p *attrParser) boolean(name string, dst *bool) {
	if v, ok := p.get(name); ok && json.Unmarshal(v, dst) != nil {
		p.fail(name, "true or false", v)
	}
}

func (p *attrParser) oneOf(name string, dst *string, allowed ...string) {
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

// count reads a whole number in [lo, hi]; a string of digits is taken too, since VS Code's
// ${input:...} variables are strings. It returns def (or 0) when the attribute is absent.
func (p *attrParser) count(name string, lo, hi int64, def ...int64) int64 {
	v, ok := p.get(name)
	if !ok {
		if len(def) > 0 {
			return def[0]
		}
		return 0
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
