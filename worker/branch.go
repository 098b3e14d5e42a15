package worker

import (
	"encoding/json"
	"fmt"

	"github.com/cmc-go/cmc/engine"
)

// What if a step had gone differently (engine/branch.go), in the model's code:
//
//	replay.alternatives {model, params, trace, step}              -> []engine.Alternative
//	replay.branch       {model, params, trace, step, alternative} -> engine.Trace
func init() {
	Register("replay.alternatives", replayAlternatives)
	Register("replay.branch", replayBranch)
}

// BranchArgs are the arguments of replay.alternatives and replay.branch.
type BranchArgs struct {
	ReplayOpenArgs
	Step        int                 `json:"step"` // 1-based: the step that goes differently
	Alternative *engine.Alternative `json:"alternative,omitempty"`
}

func branchArgs(op string, req *Request) (BranchArgs, error) {
	var b BranchArgs
	if err := json.Unmarshal(req.Args, &b); err != nil {
		return b, fmt.Errorf("%s: bad arguments: %w", op, err)
	}
	a, err := traceArgs(op, req)
	b.ReplayOpenArgs = a
	return b, err
}

func replayAlternatives(req *Request) ([]byte, error) {
	a, err := branchArgs("replay.alternatives", req)
	if err != nil {
		return nil, err
	}
	m, err := build(a.Model, a.Params)
	if err != nil {
		return nil, err
	}
	alts, err := engine.Alternatives(m, a.Trace, a.Step)
	if err != nil {
		return nil, err
	}
	return json.Marshal(alts)
}

func replayBranch(req *Request) ([]byte, error) {
	a, err := branchArgs("replay.branch", req)
	if err != nil {
		return nil, err
	}
	if a.Alternative == nil {
		return nil, fmt.Errorf("replay.branch: no alternative")
	}
	m, err := build(a.Model, a.Params)
	if err != nil {
		return nil, err
	}
	t, err := engine.Branch(m, a.Trace, a.Step, *a.Alternative)
	if err != nil {
		return nil, err
	}
	return json.Marshal(t)
}
