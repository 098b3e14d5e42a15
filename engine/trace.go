package engine

import (
	"fmt"
	"strconv"

	"github.com/cmc-go/cmc/canon"

	"github.com/cmc-go/cmc/internal/transition"
)

// A Trace is a run of the model: the initial state and the steps from it. It is small, stable and
// replayable: a step names its process and event and gives every Choose value, so re-running the
// handlers with those values reproduces the states, which each step's hash proves.
type Trace struct {
	Model    string            `json:"model"`
	Params   map[string]string `json:"params,omitempty"`
	InitHash Hash              `json:"init_hash"`
	Init     []canon.Leaf      `json:"init,omitempty"` // the initial state, flattened by path
	// Procs names the processes, in the model's order: the roots of the state that act. Env names
	// the environment components (a network, timers). Traces stored before Procs have only Env.
	Procs     []string   `json:"procs,omitempty"`
	Env       []string   `json:"env,omitempty"`
	Steps     []Step     `json:"steps"`
	Violation *Violation `json:"violation,omitempty"` // nil for a kept random walk
}

// A Step is one transition.
type Step struct {
	Proc    string            `json:"proc"`
	Event   string            `json:"event"`
	Choices []Choice          `json:"choices,omitempty"`
	Hash    Hash              `json:"hash"` // of the state after the step
	Notes   []transition.Note `json:"notes,omitempty"`
	Site    string            `json:"site,omitempty"` // the handler's file:line
	// Changes is what the step changed, by path: the debugger shows states from these without
	// re-running the model.
	Changes []canon.Change `json:"changes,omitempty"`
}

// A Choice is one Choose call: the value it returned, of how many, where, and what the value
// means when the model said (cmc.ChooseOf).
type Choice struct {
	Value int    `json:"value"`
	N     int    `json:"n"`
	Site  string `json:"site"`
	Label string `json:"label,omitempty"`
}

// String says what the call chose, as every front end shows it: "0 of 2", or with its label
// "0 of 2: deliver RREP C→A".
func (c Choice) String() string {
	s := strconv.Itoa(c.Value) + " of " + strconv.Itoa(c.N)
	if c.Label != "" {
		s += ": " + c.Label
	}
	return s
}

// A Violation says what went wrong at the end of a trace.
type Violation struct {
	Kind      string `json:"kind"` // invariant, assertion, panic, deadlock, step-invariant, model-error, hang, crash, guide (guide.go), scenario (scenario.go)
	Name      string `json:"name,omitempty"`
	Message   string `json:"message"`
	Site      string `json:"site,omitempty"`
	Signature string `json:"signature"` // equal for the same violation found again
}

// NewViolation fills in the signature: the kind and where or what, not the message, so the same
// bug found by another path or in another run is recognised.
func NewViolation(kind, name, msg, site string) *Violation {
	sig := kind
	switch {
	case name != "":
		sig += ":" + name
	case site != "":
		sig += ":" + trimSite(site)
	default:
		sig += ":" + msg
	}
	return &Violation{Kind: kind, Name: name, Message: msg, Site: site, Signature: sig}
}

// trimSite keeps the file name and line, so a signature survives moving the checkout.
func trimSite(site string) string {
	for i := len(site) - 1; i >= 0; i-- {
		if site[i] == '/' {
			return site[i+1:]
		}
	}
	return site
}

// Choices returns the step's Choose values.
func (s *Step) Values() []int {
	v := make([]int, len(s.Choices))
	for i, c := range s.Choices {
		v[i] = c.Value
	}
	return v
}

// A Hash is a state hash; it prints and marshals as 16 hex digits.
type Hash uint64

func (h Hash) String() string { return fmt.Sprintf("%016x", uint64(h)) }

func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

func (h *Hash) UnmarshalText(b []byte) error {
	v, err := strconv.ParseUint(string(b), 16, 64)
	if err != nil {
		return fmt.Errorf("state hash %q: want 16 hex digits", b)
	}
	*h = Hash(v)
	return nil
}
