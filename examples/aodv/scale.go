package aodv

import (
	"slices"

	"github.com/cmc-go/cmc"
)

// This file is part of the checker's harness: AODV on chains and grids of up to 8 nodes, for the
// search experiment of docs/search.md (after seed 004, tables 1 and 2), and the protocol-specific
// scores that guide a best-first search there.
//
// AODVChain and AODVGrid are the model of model.go (the same bounds and defaults, the
// specification's RERR rule unless bug=false) on another topology: a node hears only its
// neighbours, so a route to the destination, the last node, takes several hops. Parameters:
//
//   - nodes: 2 to 8 (default 5); a grid is 2 nodes wide (A B / C D / ...).
//   - score: 0, none (default); 1, J-Sim's AODV-BeFS-1, the number of valid routes; 3, AODV-BeFS-3,
//     two levels: valid routes to the destination, then valid routes to any node.
//   - abstract: the abstract state is each node's route to the destination (next hop, sequence
//     number, hops, valid): CMC's class 3 novelty, when there is no score.
//
// Scenario "route found": the first node has a valid route to the destination. Its progress is
// the number of valid routes to the destination.

func init() {
	for _, shape := range []string{"Chain", "Grid"} {
		cmc.Register("AODV"+shape, func(p *cmc.Params) *cmc.Model {
			cfg := ModelConfig{
				Nodes: p.Int("nodes", 5), Queue: p.Int("queue", 3),
				MaxSeq: p.Int("seq", 1), MaxRREQ: p.Int("rreq", 2), Requests: p.Int("requests", 3),
				Faults: p.Int("faults", 1), Hear: p.Int("hear", 1), Bug: p.Bool("bug", true),
			}
			cfg.Order = p.Bool("order", !cfg.Bug)
			score, abstract := p.Int("score", 0), p.Bool("abstract", false)
			switch {
			case cfg.Nodes < 2 || cfg.Nodes > 8:
				p.Fail("parameter nodes=%d: the model has 2 to 8 nodes", cfg.Nodes)
				return nil
			case score != 0 && score != 1 && score != 3:
				p.Fail("parameter score=%d: 0 (none), 1 (AODV-BeFS-1) or 3 (AODV-BeFS-3)", score)
			}
			cfg.Dest = cfg.Nodes - 1
			cfg.Links = chain(cfg.Nodes)
			if shape == "Grid" {
				cfg.Links = grid(cfg.Nodes)
			}
			dest := NodeID(cfg.Dest)
			return NewModel("AODV"+shape, cfg, func(m *cmc.Model, s *System) {
				switch score {
				case 1:
					m.Score(func() int { return s.validRoutes(Everyone) })
				case 3:
					m.Score(func() int { return s.validRoutes(dest) }, func() int { return s.validRoutes(Everyone) })
				}
				if abstract {
					m.Abstract(func() any { return s.routesTo(dest) })
				}
				m.Sometimes("route found", func() bool { _, ok := s.Routers[0].NextHop(dest); return ok },
					func() int { return s.validRoutes(dest) })
			})
		})
	}
}

// chain links each node to the one before and the one after it.
func chain(n int) [][]bool {
	links := square(n)
	for i := 1; i < n; i++ {
		links[i-1][i], links[i][i-1] = true, true
	}
	return links
}

// grid lays the nodes out two wide, row by row, and links each to the nodes beside, above and
// below it.
func grid(n int) [][]bool {
	links := square(n)
	for i := range n {
		for _, j := range []int{i + 1, i + 2} {
			if j < n && (j == i+2 || i%2 == 0) {
				links[i][j], links[j][i] = true, true
			}
		}
	}
	return links
}

func square(n int) [][]bool {
	links := make([][]bool, n)
	for i := range links {
		links[i] = make([]bool, n)
	}
	return links
}

// validRoutes counts the valid routes of all nodes to dest, or to anyone when dest is Everyone.
func (s *System) validRoutes(dest NodeID) int {
	n := 0
	for _, r := range s.Routers {
		for _, rt := range r.routes {
			if rt.Valid && (dest == Everyone || rt.Dest == dest) {
				n++
			}
		}
	}
	return n
}

// abstractRoute is a route as the abstract state sees it: no precursors, no expiry.
type abstractRoute struct {
	NextHop NodeID
	Seq     uint32
	Hops    uint8
	Valid   bool
}

// routesTo is each node's route to dest (the zero route when it has none): the abstract state.
func (s *System) routesTo(dest NodeID) []abstractRoute {
	out := make([]abstractRoute, len(s.Routers))
	for i, r := range s.Routers {
		if rt := r.route(dest); rt != nil {
			out[i] = abstractRoute{rt.NextHop, rt.Seq, rt.Hops, rt.Valid}
		}
	}
	return slices.Clip(out)
}
