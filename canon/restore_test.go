package canon

import (
	"bytes"
	"reflect"
	"testing"
	"unsafe"
)

// A decoded value's footprint is the one encoding it gives, region for region; and after any
// change, in place or by new objects, Restore gives back exactly the decoded value, leaving the
// root's fields that are not state as they are, as Decode does.
func TestRestoreGivesTheDecodedValue(t *testing.T) {
	seed := shapeSeed(t)
	g := newShapeGen(seed)
	restored := 0
	for i := range 400 {
		root := g.shape()
		var enc Encoder
		orig := captureShape(&enc, root, "s")
		if orig.err != nil {
			continue
		}
		var dec Decoder
		into := reflect.New(root.Type().Elem())
		if err := dec.DecodeValue(orig.b, into); err != nil {
			t.Fatalf("shape %d (%s): decode: %v", i, root.Type(), err)
		}
		var fd Footprint
		hasD := dec.Footprint(&fd)
		var fe Footprint
		hasE := false
		enc.EncodeComponents([]Root{{Name: "s", V: into}}, func(int, []byte) {
			p := enc.e.footprint()
			hasE = p != nil && p.fill(&fe)
		}, nil)
		if hasD != hasE {
			t.Fatalf("shape %d (%s): decoding says footprint %t, encoding the result says %t", i, root.Type(), hasD, hasE)
		}
		if !hasD {
			continue
		}
		if len(fd.regions) != len(fe.regions) {
			t.Fatalf("shape %d (%s): decoding found %d regions, encoding %d", i, root.Type(), len(fd.regions), len(fe.regions))
		}
		for j := range fd.regions {
			if fd.regions[j] != fe.regions[j] {
				t.Fatalf("shape %d (%s): region %d is %+v decoded, %+v encoded", i, root.Type(), j, fd.regions[j], fe.regions[j])
			}
		}
		if len(fd.maps) != len(fe.maps) || fd.flat != fe.flat {
			t.Fatalf("shape %d (%s): decoding found %d maps (flat %t), encoding %d (flat %t)", i, root.Type(), len(fd.maps), fd.flat, len(fe.maps), fe.flat)
		}
		if fd.flat && !fd.Same() {
			t.Fatalf("shape %d (%s): a value just decoded is not the same as its footprint", i, root.Type())
		}

		scribble(into.Elem(), map[unsafe.Pointer]bool{})
		if g.r.IntN(2) == 0 {
			g.fill(into.Elem(), 4, false) // new objects, new backing arrays, new hidden values
		}
		hidden := hiddenBytes(into)
		fd.Restore()
		if got := captureShape(&enc, into, "s"); got.err != nil || !bytes.Equal(got.b, orig.b) {
			t.Fatalf("shape %d (%s): restored value encodes as\n%x (%v), not\n%x", i, root.Type(), got.b, got.err, orig.b)
		}
		if !bytes.Equal(hiddenBytes(into), hidden) {
			t.Fatalf("shape %d (%s): restoring changed the root's fields that are not state", i, root.Type())
		}
		if fd.root == nil && fd.flat && !fd.Same() {
			t.Fatalf("shape %d (%s): restored memory differs from its footprint", i, root.Type())
		}
		restored++
	}
	if restored < 100 {
		t.Fatalf("only %d of 400 shapes had a footprint to restore", restored)
	}
}

// scribble changes every scalar v reaches in place, through pointers, slices (to their capacity),
// arrays and structs, hidden fields included, and zeroes every map's values.
func scribble(v reflect.Value, seen map[unsafe.Pointer]bool) {
	v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem() // settable, even unexported
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Complex64, reflect.Complex128:
		v.SetComplex(v.Complex() + 1)
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Array:
		for i := range v.Len() {
			scribble(v.Index(i), seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			scribble(v.Field(i), seen)
		}
	case reflect.Slice:
		if v.Cap() == 0 || seen[v.UnsafePointer()] {
			return
		}
		seen[v.UnsafePointer()] = true
		all := v.Slice(0, v.Cap())
		for i := range all.Len() {
			scribble(all.Index(i), seen)
		}
	case reflect.Map:
		if v.IsNil() || seen[v.UnsafePointer()] {
			return
		}
		seen[v.UnsafePointer()] = true
		for _, k := range v.MapKeys() {
			if e := v.MapIndex(k); e.Kind() == reflect.Pointer && !e.IsNil() && !seen[e.UnsafePointer()] {
				seen[e.UnsafePointer()] = true
				scribble(e.Elem(), seen)
			}
			v.SetMapIndex(k, reflect.Zero(v.Type().Elem())) // same keys, zero values
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.UnsafePointer()] {
			return
		}
		seen[v.UnsafePointer()] = true
		scribble(v.Elem(), seen)
	}
}

// hiddenBytes is the memory of the root's fields that are not state.
func hiddenBytes(root reflect.Value) []byte {
	var b []byte
	t := root.Type().Elem()
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("cmc") == "-" {
			b = append(b, unsafe.Slice((*byte)(unsafe.Add(root.UnsafePointer(), f.Offset)), f.Type.Size())...)
		}
	}
	return b
}
