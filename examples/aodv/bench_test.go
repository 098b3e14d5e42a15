package aodv

import (
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
