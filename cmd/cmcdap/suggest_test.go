package main

import (
	"bytes"
	"strings"
	"testing"
)

// cmcdap suggest on a model with a retransmission counter suggests leaving the counter out, with
// its evidence and the line to add, and keeps the sequence number the handlers read.
func TestSuggest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	var out, errb bytes.Buffer
	if code := suggestCommand([]string{"-steps", "300", "./testdata/retransmit"}, &out, &errb); code != 0 {
		t.Fatalf("suggest: exit %d\n%s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"walked Retransmit for 300 steps (seed 1), watching 2 integer fields\nsuggested: leave out of the state\n",
		"  github.com/cmc-go/cmc/cmd/cmcdap/testdata/retransmit.sender.Retries: it changed ",
		"resetting it to 0 in 8 states changed neither which events were enabled",
		"    values seen: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, …",
		`    to leave it out, add to the model: m.Omit("github.com/cmc-go/cmc/cmd/cmcdap/testdata/retransmit.sender", "Retries")`,
		"kept: they grow like counters, but the model reads them",
		"retransmit.sender.Seq: it changed ",
		"nothing is left out unless you add the line to the model",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if code := suggestCommand([]string{"-steps", "0", "./testdata/retransmit"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-steps") {
		t.Errorf("-steps 0: exit %d, %s", code, errb.String())
	}
}
