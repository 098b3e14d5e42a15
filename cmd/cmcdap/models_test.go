package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestModels: the names a package registers, as lines or JSON; a package that does not build
// is one line on stderr, exit 2.
func TestModels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	for _, c := range []struct {
		args       []string
		code       int
		out, errIs string
	}{
		{[]string{"./testdata/noprocs"}, 0, "Counter\nEmpty\n", ""},
		{[]string{"-json", "./testdata/noprocs"}, 0, `["Counter","Empty"]` + "\n", ""},
		{[]string{"-json", "./testdata/nomodel"}, 0, "[]\n", ""},
		{[]string{"./testdata/broken"}, 2, "", "does not build"},
		{[]string{"a", "b"}, 2, "", "give one package"},
	} {
		var out, errb bytes.Buffer
		code := modelsCommand(context.Background(), c.args, &out, &errb)
		if code != c.code || out.String() != c.out || !strings.Contains(errb.String(), c.errIs) || (c.errIs == "") != (errb.Len() == 0) {
			t.Errorf("models %v: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q", c.args, code, out.String(), errb.String(), c.code, c.out, c.errIs)
		}
	}
}
