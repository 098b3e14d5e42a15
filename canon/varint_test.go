package canon

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// The encoder's varints and floats are binary's, written in place (encode.go, uvarint).
func FuzzVarintsAsBinary(f *testing.F) {
	for _, x := range []int64{0, 1, -1, 63, -64, 64, 1 << 40, math.MinInt64, math.MaxInt64} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x int64) {
		var e encoder
		e.uvarint(uint64(x))
		e.varint(x)
		e.float(math.Float64frombits(uint64(x)))
		want := binary.AppendUvarint(nil, uint64(x))
		want = binary.AppendVarint(want, x)
		want = binary.LittleEndian.AppendUint64(want, floatBits(math.Float64frombits(uint64(x))))
		if !bytes.Equal(e.buf, want) {
			t.Fatalf("%d encodes as %x, want %x", x, e.buf, want)
		}
	})
}
