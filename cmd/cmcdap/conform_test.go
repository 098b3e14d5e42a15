package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestConform: a log of a correct run conforms (exit 0), pppd 2.4.0's log is refused at its
// line (exit 1), and a model with two specifications asks for -spec (exit 2).
func TestConform(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	pkg, logs := "../../examples/ppp", "../../examples/ppp/testdata/"
	for _, c := range []struct {
		args       []string
		code       int
		out, errIs string
	}{
		{[]string{"-model", "PPP", "-spec", "ppp0", pkg, logs + "run.jsonl"}, 0,
			logs + "run.jsonl: all 6 steps conform to spec ppp0 of model PPP\n", ""},
		{[]string{"-model", "PPP", "-spec", "ppp0", pkg, logs + "run-pppd240.jsonl"}, 1,
			logs + "run-pppd240.jsonl: log line 6 does not conform to spec ppp0 of model PPP: spec ppp0 in Opened: observed RTA with tld,scr reaching Opened; the spec allows tld,scr/Req-Sent\n(5 steps before it conform)\n", ""},
		{[]string{"-model", "PPP", pkg, logs + "run.jsonl"}, 2, "", "several specifications (ppp0, ppp1): choose one with -spec"},
		{[]string{pkg}, 2, "", "give a package and a log file"},
		{[]string{"-model", "PPP", "-spec", "ppp0", pkg, logs + "run-pppd240.itf.json"}, 1,
			logs + "run-pppd240.itf.json: ITF state 5 does not conform to spec ppp0 of model PPP: spec ppp0 in Opened: observed RTA with tld,scr reaching Opened; the spec allows tld,scr/Req-Sent\n(5 steps before it conform)\n", ""},
	} {
		var out, errb bytes.Buffer
		code := conformCommand(c.args, &out, &errb)
		if code != c.code || out.String() != c.out || !strings.Contains(errb.String(), c.errIs) {
			t.Errorf("conform %v: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q", c.args, code, out.String(), errb.String(), c.code, c.out, c.errIs)
		}
	}
}
