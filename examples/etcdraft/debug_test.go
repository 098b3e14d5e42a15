package etcdraft

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/cmc-go/cmc/canon"
	"github.com/cmc-go/cmc/engine"
)

func TestDebugRoundtrip(t *testing.T) {
	res, _ := engine.Check(context.Background(), New("EtcdRaft", Bounds{Elections: 1, InFlight: 4}, false), engine.Options{MaxStates: 2000, SelfCheck: -1, Search: "random", Steps: 6, Keep: true})
	tr := res.Walk
	mc, init, err := engine.NewMachine(New("EtcdRaft", Bounds{Elections: 1, InFlight: 4}, false))
	if err != nil { t.Fatal(err) }
	defer mc.Close()
	s := init
	for i := range tr.Steps {
		st := &tr.Steps[i]
		next, _, err := mc.Apply(s, i+1, st, false)
		if err != nil { t.Fatal(err) }
		s = next
		t.Log(st.Proc, st.Event)
		for ci, c := range mc.Def.Components {
			b := mc.Bytes(s, ci)
			fresh := reflect.New(c.Root.Type().Elem())
			if err := canon.DecodeValue(b, fresh); err != nil { t.Fatal(err) }
			var enc canon.Encoder
			b2, err := enc.EncodeValue(nil, fresh, c.Name)
			if err != nil { t.Fatal(err) }
			if !bytes.Equal(b, b2) {
				t.Logf("component %s: roundtrip differs: %d vs %d bytes; first diff at %d", c.Name, len(b), len(b2), firstDiff(b, b2))
				g1 := canon.NewGraph([]canon.Root{{Name: c.Name, V: fresh}})
				_ = g1
			}
		}
	}
}

func firstDiff(a, b []byte) int { for i := range min(len(a), len(b)) { if a[i] != b[i] { return i } }; return min(len(a), len(b)) }
