package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/conform"
	"github.com/cmc-go/cmc/internal/transition"
)

// Log conformance runs here because the specification is the user's Go code: the worker builds
// the model and checks the log against a specification the model declares (cmc.Refines).
func init() { Register("conform", conformOp) }

// ConformArgs are the arguments of a conform request.
type ConformArgs struct {
	Model  string            `json:"model"`
	Params map[string]string `json:"params,omitempty"`
	Spec   string            `json:"spec,omitempty"` // "": the model's only specification
	Log    string            `json:"log"`            // JSON lines (package conform), or ITF
	// ITF names the variables of an ITF trace (conform.ReadITF); nil: Log is JSON lines.
	ITF *conform.ITFNames `json:"itf,omitempty"`
}

// ConformReply is the outcome: how many steps conformed and, if one did not, its line and why.
type ConformReply struct {
	Spec      string `json:"spec"`
	Steps     int    `json:"steps"`
	Conformed int    `json:"conformed"`
	Line      int    `json:"line,omitempty"`  // the first step that does not conform; 0: all do
	Where     string `json:"where,omitempty"` // the same, for people: "log line 6", "ITF state 5"
	Message   string `json:"message,omitempty"`
}

func conformOp(req *Request) ([]byte, error) {
	var a ConformArgs
	if err := json.Unmarshal(req.Args, &a); err != nil {
		return nil, fmt.Errorf("worker: bad conform arguments: %v", err)
	}
	m, err := build(a.Model, a.Params)
	if err != nil {
		return nil, err
	}
	d, err := m.Definition()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, r := range d.Refinements {
		names = append(names, r.Spec)
	}
	var pick int
	switch {
	case len(names) == 0:
		return nil, fmt.Errorf("model %s declares no specification: add one with cmc.Refines(m, spec, observer)", a.Model)
	case a.Spec == "" && len(names) > 1:
		return nil, fmt.Errorf("model %s has several specifications (%s): choose one with -spec", a.Model, strings.Join(names, ", "))
	case a.Spec != "":
		pick = -1
		for i, n := range names {
			if n == a.Spec {
				pick = i
			}
		}
		if pick < 0 {
			return nil, fmt.Errorf("model %s has no specification %q; it has: %s", a.Model, a.Spec, strings.Join(names, ", "))
		}
	}
	var steps []conform.Step
	if a.ITF != nil {
		steps, err = conform.ReadITF(strings.NewReader(a.Log), *a.ITF)
	} else {
		steps, err = conform.Read(strings.NewReader(a.Log))
	}
	if err != nil {
		return nil, err
	}
	rep := ConformReply{Spec: names[pick], Steps: len(steps)}
	rep.Conformed, err = checkSpec(d.Refinements[pick], steps)
	var refused *conform.Refusal
	switch {
	case errors.As(err, &refused):
		rep.Line, rep.Where, rep.Message = refused.Line, refused.Where, refused.Message
	case err != nil:
		return nil, err
	}
	return json.Marshal(rep)
}

// checkSpec runs conform.Check as user code (the specification's Next and String are the
// user's): the watchdog sees a spec that hangs, and a spec that panics is the user's error.
func checkSpec(r *cmc.Refinement, steps []conform.Step) (n int, err error) {
	transition.Enter()
	defer func() {
		transition.Leave()
		if p := recover(); p != nil {
			err = fmt.Errorf("spec %s panicked while checking the log: %v", r.Spec, p)
		}
	}()
	return conform.Check(r, steps)
}
