package canon_test

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// Encoders on many goroutines may meet a type first at the same time: each must see a finished
// plan (run with -race).
func TestConcurrentFirstUse(t *testing.T) {
	for i := range 20 {
		// Types no test has met yet, so their plans are built now, by whichever goroutine is first.
		typ := reflect.StructOf([]reflect.StructField{
			{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[map[string][]point]()},
			{Name: "Next", Type: reflect.TypeFor[*list]()},
			{Name: "Any", Type: reflect.TypeFor[any]()},
		})
		v := reflect.New(typ)
		v.Elem().Field(0).Set(reflect.ValueOf(map[string][]point{"a": {{1, 2}}, "b": nil}))
		v.Elem().Field(1).Set(reflect.ValueOf(&list{val: i}))
		dyn := reflect.New(reflect.ArrayOf(i+1, reflect.TypeFor[[]int16]())).Elem()
		v.Elem().Field(2).Set(dyn)

		got := make([][]byte, 8)
		var wg sync.WaitGroup
		for g := range got {
			wg.Go(func() {
				var enc canon.Encoder
				b, err := enc.EncodeValue(nil, v, "")
				if err != nil {
					t.Error(err)
				}
				got[g] = b
			})
		}
		wg.Wait()
		for _, b := range got[1:] {
			if !bytes.Equal(b, got[0]) {
				t.Fatalf("type %d: goroutines disagree on the encoding", i)
			}
		}
	}
}
