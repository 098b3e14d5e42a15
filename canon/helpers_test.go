package canon_test

import (
	"flag"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// encode returns the canonical bytes of the state root points to, failing the test on error.
func encode(t testing.TB, root any) []byte {
	t.Helper()
	var enc canon.Encoder
	b, err := enc.Encode(nil, root)
	if err != nil {
		t.Fatalf("encode %T: %v", root, err)
	}
	return b
}
