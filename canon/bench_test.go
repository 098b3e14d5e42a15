package canon_test

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/cmc-go/cmc/canon"
)

// A TwoPhase commit state with 7 resource managers, mid-protocol.
type tpMsg struct {
	kind uint8 // prepared, commit, abort
	rm   uint8
}

type tpTM struct {
	state    uint8
	prepared []bool
}

type twoPhase struct {
	tm   tpTM
	rms  [7]uint8
	msgs []tpMsg `cmc:"set"`
}

func newTwoPhase() *twoPhase {
	s := &twoPhase{tm: tpTM{state: 0, prepared: make([]bool, 7)}}
	for i := range 7 {
		s.rms[i] = uint8(i % 3)
		if i%2 == 0 {
			s.tm.prepared[i] = true
			s.msgs = append(s.msgs, tpMsg{kind: 0, rm: uint8(i)})
		}
	}
	s.msgs = append(s.msgs, tpMsg{kind: 1}, tpMsg{kind: 0, rm: 5})
	return s
}

// An AODV node: a routing table of 64 entries and 8 queued messages.
type aodvRoute struct {
	seq        uint32
	hops       uint8
	next       uint8
	valid      bool
	lifetime   int64
	precursors []uint8
}

type aodvMsg struct {
	kind     uint8
	src, dst uint8
	seq      uint32
	hops     uint8
}

type aodvNode struct {
	id     uint8
	seq    uint32
	routes map[uint8]aodvRoute
	queue  []aodvMsg
}

func newAODV() *aodvNode {
	n := &aodvNode{id: 3, seq: 17, routes: make(map[uint8]aodvRoute)}
	for i := range 64 {
		n.routes[uint8(i)] = aodvRoute{
			seq: uint32(1000 + i), hops: uint8(i % 7), next: uint8((i * 5) % 64), valid: i%3 != 0,
			lifetime: int64(i) * 1e9, precursors: []uint8{uint8(i), uint8(i + 1)},
		}
	}
	for i := range 8 {
		n.queue = append(n.queue, aodvMsg{kind: uint8(i % 3), src: 3, dst: uint8(i * 7), seq: uint32(i), hops: 1})
	}
	return n
}

func BenchmarkTwoPhase(b *testing.B) { benchState(b, newTwoPhase()) }
func BenchmarkAODV(b *testing.B)     { benchState(b, newAODV()) }

// benchState measures what the checker does per state, and what simpler approaches would cost:
//   - encode: canonical bytes of a state (what is hashed and stored in the frontier);
//   - decode: restoring a state from its bytes, to run the next transition on it;
//   - naive-sprintf: fmt.Sprintf("%#v"), the first "canonical form" people reach for;
//   - naive-deepcopy: a reflective deep copy, the naive way to keep a state to restore later;
//   - floor-copy: copy() of as many bytes as the encoding has, the least any approach can cost.
func benchState[T any](b *testing.B, s *T) {
	var enc canon.Encoder
	encoded, err := enc.Encode(nil, s)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(encoded)))
		buf := make([]byte, 0, 2*len(encoded))
		for b.Loop() {
			buf, _ = enc.Encode(buf[:0], s)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(encoded)))
		var into T
		for b.Loop() {
			if err := canon.Decode(encoded, &into); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("naive-sprintf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = fmt.Sprintf("%#v", s)
		}
	})
	b.Run("naive-deepcopy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = deepCopy(reflect.ValueOf(s))
		}
	})
	b.Run("floor-copy", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(encoded)))
		dst := make([]byte, len(encoded))
		for b.Loop() {
			copy(dst, encoded)
		}
	})
	b.Run("hash", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(encoded)))
		for b.Loop() {
			_ = canon.Hash(encoded)
		}
	})
}

// deepCopy copies v and everything it reaches, the way a naive checker keeps a state: one
// reflect call per value and an allocation per object. It ignores aliasing, as naive copies do.
func deepCopy(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	copyInto(out, v)
	return out
}

func copyInto(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			p := reflect.New(src.Type().Elem())
			copyInto(p.Elem(), src.Elem())
			dst.Set(p)
		}
	case reflect.Struct:
		for i := range src.NumField() {
			copyInto(unexport(dst.Field(i)), src.Field(i))
		}
	case reflect.Slice:
		if !src.IsNil() {
			s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
			for i := range src.Len() {
				copyInto(s.Index(i), src.Index(i))
			}
			dst.Set(s)
		}
	case reflect.Array:
		for i := range src.Len() {
			copyInto(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if !src.IsNil() {
			m := reflect.MakeMapWithSize(src.Type(), src.Len())
			it := src.MapRange()
			for it.Next() {
				m.SetMapIndex(deepCopy(it.Key()), deepCopy(it.Value()))
			}
			dst.Set(m)
		}
	default:
		dst.Set(unexportValue(src))
	}
}

// unexport lifts the read-only flag of an addressable unexported field.
func unexport(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// unexportValue lifts the read-only flag of any value, by copying it.
func unexportValue(v reflect.Value) reflect.Value {
	if v.CanInterface() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Bool:
		c.SetBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.SetInt(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		c.SetUint(v.Uint())
	case reflect.Float32, reflect.Float64:
		c.SetFloat(v.Float())
	case reflect.String:
		c.SetString(v.String())
	default:
		copyInto(c, v)
	}
	return c
}

// The naive baseline must really copy, or the comparison means nothing.
func TestNaiveDeepCopy(t *testing.T) {
	for _, s := range []any{newAODV(), newTwoPhase()} {
		c := deepCopy(reflect.ValueOf(s)).Interface()
		if diff := cmp.Diff(s, c, everything); diff != "" {
			t.Errorf("deepCopy(%T) differs:\n%s", s, diff)
		}
	}
}
