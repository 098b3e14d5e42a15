package worker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cmc-go/cmc/engine"
)

// slicing.suggest {model, params, steps, seed} -> engine.Slicing: the fields a random walk of the
// model found behaving like counters, statistics or timestamps (engine.SuggestOmissions).
func init() { Register("slicing.suggest", slicingSuggest) }

// SuggestArgs are the arguments of slicing.suggest.
type SuggestArgs struct {
	Model  string            `json:"model"`
	Params map[string]string `json:"params,omitempty"`
	Steps  int               `json:"steps,omitempty"` // 0: 2,000
	Seed   uint64            `json:"seed,omitempty"`  // 0: 1
}

func slicingSuggest(req *Request) ([]byte, error) {
	var a SuggestArgs
	if err := json.Unmarshal(req.Args, &a); err != nil {
		return nil, fmt.Errorf("slicing.suggest: bad arguments: %w", err)
	}
	m, err := build(a.Model, a.Params)
	if err != nil {
		return nil, err
	}
	sl, err := engine.SuggestOmissions(context.Background(), m, a.Steps, a.Seed)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sl)
}
