package canon_test

//lint:file-ignore U1000 the test types' unexported fields are read by canon through reflection, never by name

import (
	"reflect"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// storageNode is shaped like an etcd raft node: its storage and logger behind interfaces, one of
// them a pointer the node also holds directly.
type storageNode struct {
	store  *circle
	s      shape // a pointer to the storage, as raft's log holds its Storage
	logger shape // a zero-size value, as raft's Logger
	v      shape // a value that is not pointer-shaped
	any    any   // an interface without methods
	none   shape // nil
	err    error // a pointer-shaped error
	shapes []any // interfaces in a slice
}

type quiet struct{}

func (quiet) area() float64 { return 0 }

type pathError struct{ path string }

func (e *pathError) Error() string { return e.path }

// An interface value decodes to its dynamic type and value, a pointer in one to the same object
// as the pointer beside it, and a Decoder that has met the types allocates nothing for the
// interfaces themselves: only the objects the state holds (here the circle and the copies of the
// values that are not pointer-shaped).
func TestInterfacesDecode(t *testing.T) {
	p := &circle{2}
	x := &storageNode{store: p, s: p, logger: quiet{}, v: square{4}, any: p, err: &pathError{"x"},
		shapes: []any{nil, 7, p}}
	b := encode(t, x)
	var dec canon.Decoder
	var y storageNode
	if err := dec.DecodeValue(b, reflect.ValueOf(&y)); err != nil {
		t.Fatal(err)
	}
	if y.s.(*circle) != y.store || y.any.(*circle) != y.store || y.shapes[2].(*circle) != y.store {
		t.Errorf("the storage behind the interfaces is not the node's storage")
	}
	if y.logger != (quiet{}) || y.v != (square{4}) || y.none != nil || y.err.Error() != "x" || y.shapes[0] != nil || y.shapes[1] != 7 {
		t.Errorf("decoded %+v, want the values of %+v", y, x)
	}
	// The circle, the pathError and its string, the shapes slice, and the boxes of square{4} and
	// 7 (short strings are shared).
	allocs := testing.AllocsPerRun(10, func() {
		if err := dec.DecodeValue(b, reflect.ValueOf(&y)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5 {
		t.Errorf("decoding allocated %v times, want at most 5", allocs)
	}
}
