package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// synth makes AODV-like traces: 4 routers with sequence numbers and route tables, a network of
// in-flight messages, and steps that each make 1-2 Choose calls, send or deliver a message
// (a note) and change 2-4 leaves, now and then adding or removing a message's leaves.
type synth struct {
	rng    *rand.Rand
	leaves []canon.Leaf // the true state, in canonical order
	next   int          // next message number
}

var (
	synthProcs  = []string{"A", "B", "C", "D"}
	synthEvents = []string{"recv", "timeout", "send", "reboot"}
	synthSites  = []string{"/home/dev/src/aodv/router.go:112", "/home/dev/src/aodv/rreq.go:40",
		"/home/dev/src/aodv/rrep.go:77", "/home/dev/src/cmc/env/net.go:93"}
	synthFields = []string{"seq", "hops", "next", "valid", "lifetime"}
)

func newSynth(seed uint64) *synth {
	y := &synth{rng: rand.New(rand.NewPCG(seed, 0))}
	for _, p := range synthProcs {
		y.leaves = append(y.leaves, canon.Leaf{Path: p + ".seq", Value: "1"}, canon.Leaf{Path: p + ".rreqID", Value: "0"})
		for _, d := range synthProcs {
			if d == p {
				continue
			}
			for _, f := range synthFields {
				y.leaves = append(y.leaves, canon.Leaf{Path: fmt.Sprintf("%s.routes[%s].%s", p, d, f), Value: "0"})
			}
		}
	}
	return y
}

func (y *synth) trace(steps int) *engine.Trace {
	t := &engine.Trace{Model: "aodv", Params: map[string]string{"nodes": "4", "loss": "true"},
		InitHash: engine.Hash(y.rng.Uint64()), Init: slices.Clone(y.leaves)}
	for range steps {
		t.Steps = append(t.Steps, y.step())
	}
	t.Violation = engine.NewViolation("invariant", "noloop", "routing loop A -> B -> A", "")
	return t
}

func (y *synth) step() engine.Step {
	r := y.rng
	st := engine.Step{Proc: synthProcs[r.IntN(4)], Event: synthEvents[r.IntN(4)], Hash: engine.Hash(r.Uint64()),
		Site: synthSites[r.IntN(2)]}
	for range 1 + r.IntN(2) {
		n := 2 + r.IntN(3)
		st.Choices = append(st.Choices, engine.Choice{Value: r.IntN(n), N: n, Site: synthSites[r.IntN(len(synthSites))]})
	}
	before := slices.Clone(y.leaves)
	for range 2 + r.IntN(3) {
		i := r.IntN(len(y.leaves))
		y.leaves[i].Value = fmt.Sprint(r.IntN(12))
	}
	msgs := 0
	for _, l := range y.leaves {
		if l.Path[0] == 'n' {
			msgs++
		}
	}
	switch {
	case r.IntN(8) == 0 && msgs < 24: // a message sent: its leaves appear
		m := fmt.Sprintf("net.msgs[%d]", y.next)
		y.next++
		y.leaves = append(y.leaves, canon.Leaf{Path: m + ".from", Value: `"` + st.Proc + `"`},
			canon.Leaf{Path: m + ".kind", Value: `"RREQ"`}, canon.Leaf{Path: m + ".seq", Value: fmt.Sprint(r.IntN(9))})
		st.Notes = append(st.Notes, engine.Note{Kind: "send", From: st.Proc, To: "*", Msg: fmt.Sprintf("RREQ{orig=%s dest=D seq=%d}", st.Proc, r.IntN(9))})
	case r.IntN(8) == 0 && msgs > 0: // one delivered: its leaves go
		first := slices.IndexFunc(y.leaves, func(l canon.Leaf) bool { return l.Path[0] == 'n' })
		y.leaves = slices.Delete(y.leaves, first, first+3)
		st.Notes = append(st.Notes, engine.Note{Kind: "deliver", From: "B", To: st.Proc, Msg: "RREP{dest=D seq=4 hops=2}"})
	default:
		st.Notes = append(st.Notes, engine.Note{Kind: "send", From: st.Proc, To: "C", Msg: fmt.Sprintf("RREP{dest=D seq=%d hops=1}", r.IntN(9))})
	}
	st.Changes = canon.Diff(before, y.leaves)
	return st
}

// openTemp opens a new store in a test's temporary directory.
func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "traces.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// complete checks that trace id is all there: as many steps as its length, all decoding, and
// every checkpoint present.
func complete(s *Store, id int64) error {
	ti, err := s.TraceInfo(id)
	if err != nil {
		return err
	}
	var steps, cps int
	if err := s.queryRow(`SELECT count(*) FROM steps WHERE trace_id = ?`, id).Scan(&steps); err != nil {
		return err
	}
	if err := s.queryRow(`SELECT count(*) FROM checkpoints WHERE trace_id = ?`, id).Scan(&cps); err != nil {
		return err
	}
	if steps != ti.Length || cps != ti.Length/CheckpointEvery+1 {
		return fmt.Errorf("trace %d: length %d but %d steps and %d checkpoints", id, ti.Length, steps, cps)
	}
	if _, _, err := s.Trace(id); err != nil {
		return err
	}
	_, err = s.State(id, ti.Length)
	return err
}
