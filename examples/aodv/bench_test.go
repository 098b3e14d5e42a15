package aodv

import (
	"context"
	"fmt"
	"testing"

	"github.com/cmc-go/cmc"
	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

// BenchmarkCodec measures what a transition of the AODV model pays to capture and restore its
// state: every component encoded in one capture, and every component decoded, on the state a
// walk of up to 30 steps reaches (route tables, queued packets and the air filled in).
func BenchmarkCodec(b *testing.B) {
	m, err := cmc.Build("AODV", nil)
	if err != nil {
		b.Fatal(err)
	}
	mc, st, err := engine.NewMachine(m)
	if err != nil {
		b.Fatal(err)
	}
	defer mc.Close()
	for step := range 30 {
		enabled, _, err := mc.Enabled(st)
		if err != nil {
			b.Fatal(err)
		}
		if len(enabled) == 0 {
			break
		}
		if err := mc.Load(st); err != nil {
			b.Fatal(err)
		}
		mc.Run(mc.Def.Events[enabled[(7*step)%len(enabled)]], nil, false, nil)
		if st, err = mc.CaptureAll(); err != nil {
			b.Fatal(err)
		}
	}
	var roots []canon.Root
	size := 0
	for i, c := range mc.Def.Components {
		roots = append(roots, canon.Root{Name: c.Name, V: c.Root})
		size += len(mc.Bytes(st, i))
	}
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		var enc canon.Encoder
		var buf []byte
		for b.Loop() {
			if err := enc.EncodeComponents(roots, func(_ int, b []byte) { buf = b }, buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		var dec canon.Decoder
		for b.Loop() {
			for i, c := range mc.Def.Components {
				if err := dec.DecodeValue(mc.Bytes(st, i), c.Root); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkBreadthFirst measures the breadth-first search of AODVSpecBug up to its first 300,000
// states (the whole search stops at 2,168,369), with one and two workers: the cost per transition
// without the self-check, and what a second core adds. docs/performance.md ("AODV per
// transition") records its figures.
func BenchmarkBreadthFirst(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("Workers%d", workers), func(b *testing.B) {
			build := func() (*cmc.Model, error) { return cmc.Build("AODVSpecBug", nil) }
			var res *engine.Result
			for b.Loop() {
				m, err := build()
				if err != nil {
					b.Fatal(err)
				}
				opts := engine.Options{Search: "bfs", MaxStates: 300000, SelfCheck: -1, Workers: workers, Build: build}
				if res, err = engine.Check(context.Background(), m, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Transitions)*float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
			b.ReportMetric(float64(res.Transitions), "transitions")
		})
	}
}
