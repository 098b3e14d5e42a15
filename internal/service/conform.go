package service

import (
	"context"

	"github.com/cmc-go/cmc/conform"
	"github.com/cmc-go/cmc/worker"
)

// Conform checks a JSON-lines log (package conform), or an ITF trace when itf names its
// variables, against a specification model declares, in a fresh worker of p: the specification
// is the user's code.
func (p *Program) Conform(ctx context.Context, model string, params map[string]string, spec, log string, itf *conform.ITFNames) (*worker.ConformReply, error) {
	var r worker.ConformReply
	if err := p.once(ctx, "conform", worker.ConformArgs{Model: model, Params: params, Spec: spec, Log: log, ITF: itf}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
