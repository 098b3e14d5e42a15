package dap

import (
	"context"
	"fmt"

	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/tracefmt"
)

// What if a step had gone differently: cmc/alternatives lists what step N could have been (other
// values of its Choose calls, other enabled events), and cmc/branch makes the trace that takes
// one of them, stores it as derived from the session's trace ("what if step N: …"), and says
// whether that step already breaks something. The editor then opens it in a session of its own
// (and Check from Here searches on from its end). Both run the model's code in a worker.

type (
	alternativesArgs struct {
		Step int `json:"step"` // 1-based: the step that goes differently
	}
	alternativesBody struct {
		Step         int                   `json:"step"`
		Alternatives []service.Alternative `json:"alternatives"`
	}
	branchArgs struct {
		Step        int                 `json:"step"`
		Alternative service.Alternative `json:"alternative"`
	}
	branchBody struct {
		Trace int64 `json:"trace"` // the new stored trace
		Steps int   `json:"steps"`
		// Violation is what the alternative step breaks at once, in the usual words; empty: nothing.
		Violation string `json:"violation,omitempty"`
	}
)

func (s *Session) cmcAlternatives(req *customRequest, a alternativesArgs) (later[alternativesBody], error) {
	var reply later[alternativesBody]
	b, err := s.whatIf(a.Step)
	if err != nil {
		return reply, err
	}
	t := s.tr.t
	go func() {
		alts, err := b.Alternatives(context.Background(), t, a.Step)
		if err != nil {
			s.sendError(&req.Request, errBadArgs, req.Command+": "+err.Error())
			return
		}
		if alts == nil {
			alts = []service.Alternative{}
		}
		reply.send(s, req, alternativesBody{Step: a.Step, Alternatives: alts})
	}()
	return reply, nil
}

func (s *Session) cmcBranch(req *customRequest, a branchArgs) (later[branchBody], error) {
	var reply later[branchBody]
	b, err := s.whatIf(a.Step)
	if err != nil {
		return reply, err
	}
	db, id, t := s.db, s.tr.id, s.tr.t
	go func() {
		nid, nt, err := b.Branch(context.Background(), db, id, t, a.Step, a.Alternative)
		if err != nil {
			s.sendError(&req.Request, errBadArgs, req.Command+": "+err.Error())
			return
		}
		body := branchBody{Trace: nid, Steps: len(nt.Steps)}
		if nt.Violation != nil {
			body.Violation = tracefmt.Violation(nt.Violation)
		}
		reply.send(s, req, body)
	}()
	return reply, nil
}

// whatIf checks that step n can go differently here and returns the program to run it in.
func (s *Session) whatIf(n int) (*service.Program, error) {
	if err := s.needStop(); err != nil {
		return nil, err
	}
	if n < 1 || n > s.tr.len() {
		return nil, fmt.Errorf("step %d is not in the trace: it has steps 1 to %d", n, s.tr.len())
	}
	if s.launch == nil || s.launch.Program == "" {
		return nil, fmt.Errorf(`what if runs the model's code: give "program" in the launch configuration`)
	}
	if s.build != nil {
		return s.build, nil
	}
	b, err := service.Open(context.Background(), s.launch.Cwd, s.launch.Program)
	if err != nil {
		return nil, err
	}
	s.build = b
	return b, nil
}
