package canon

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// A map walk must meet every entry once, with its key and value, both ways: through the pointers
// reflect.MapIter holds (iterWords) and through the runtime's linked iterator, which a Go release
// that moved them falls back to. A capture of maps must be the same bytes either way.
func TestMapIter(t *testing.T) {
	if iterWords == 0 {
		t.Error("reflect.MapIter no longer holds the entry's key and value pointers after its map Value: maps are walked with the runtime's linked iterator, which allocates at every map; find where they went (canon/mapiter.go)")
	}
	x := 7
	type val struct {
		s string
		p *int
	}
	big := map[int]string{}
	for i := range 2000 { // a map of several tables
		big[i*7919] = fmt.Sprint(i)
	}
	maps := []any{
		map[string]int{},
		map[string]int{"a": 1, "b": 2, "c": 3},
		map[uint64]val{1: {"one", &x}, 2: {"two", nil}},
		map[[3]int]bool{{1, 2, 3}: true, {3, 2, 1}: false},
		map[int8]struct{}{-1: {}, 1: {}},
		// keys and values over 128 bytes, which the runtime stores apart from the map's slots
		map[[20]int]bool{{1}: true, {2}: false},
		map[int][40]int{1: {1, 2, 3}, 2: {39: 4}},
		big,
	}
	type holder struct {
		A map[string]int
		B map[uint64]*int
		C map[int]string
		D map[[20]int][40]int
	}
	h := &holder{A: map[string]int{"x": 1, "y": 2}, B: map[uint64]*int{5: &x, 6: &x, 7: nil}, C: big,
		D: map[[20]int][40]int{{1}: {2}, {3}: {39: 4}}}
	found := iterWords
	t.Cleanup(func() { iterWords = found })
	var captures [][]byte
	for _, words := range []uintptr{found, 0} {
		iterWords = words
		for _, m := range maps {
			mv := reflect.ValueOf(m)
			want := map[any]any{}
			for r := mv.MapRange(); r.Next(); {
				want[r.Key().Interface()] = r.Value().Interface()
			}
			got := map[any]any{}
			var it mapIter
			for it.start(mv); it.key != nil; it.next() {
				k := reflect.NewAt(mv.Type().Key(), it.key).Elem().Interface()
				if _, twice := got[k]; twice {
					t.Fatalf("words %d: %T: key %v met twice", words, m, k)
				}
				got[k] = reflect.NewAt(mv.Type().Elem(), it.elem).Elem().Interface()
			}
			it.done()
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("words %d: %T: walked %v, want %v", words, m, got, want)
			}
			if it.key != nil || it.elem != nil || it.linked != (linkedIter{}) || it.r != (reflect.MapIter{}) {
				t.Fatalf("words %d: done left the walk holding the map", words)
			}
		}
		var enc Encoder
		b, err := enc.Encode(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		captures = append(captures, b)
	}
	if !bytes.Equal(captures[0], captures[1]) {
		t.Fatal("a capture of maps differs between the two walks")
	}
}
