package dap

import (
	"strings"
	"testing"

	"github.com/cmc-go/cmc/canon"
)

// TestNilSafe: expressions read a state that changes shape without failing where it has nothing
// yet, and still fail where an expression is wrong at every step.
func TestNilSafe(t *testing.T) {
	e := newEnv(buildTree([]canon.Leaf{
		{Path: "B.routes[0].NextHop", Value: "A"},
		{Path: "B.routes[0].Hops", Value: "1"},
		{Path: "B.broken", Value: "nil"},
		{Path: `B.byDest["D"].Seq`, Value: "3"},
		{Path: "net.Pending", Value: "nil"},
		{Path: "odd name.x", Value: "1"},
	}))
	progs := programs{}
	for _, c := range []struct{ expr, want string }{
		{`B.routes[1].NextHop`, "nil"}, // past the end
		{`B.routes[1].NextHop == "C"`, "false"},
		{`B.routes[1].Hops > 3`, "false"}, // an ordered comparison with nil
		{`B.routes[1].Hops <= 3`, "false"},
		{`B.routes[0].Hops >= 1`, "true"},
		{`B.routes[-1].Hops`, "1"},  // expr's last element
		{`B.broken[0].Dest`, "nil"}, // into nil
		{`len(B.broken)`, "0"},
		{`len(nil)`, "0"},
		{`len(B.routes)`, "1"},
		{`len(B)`, "3"},
		{`all(B.broken, .Valid)`, "true"}, // nil is empty
		{`count(net.Pending, .To == "A")`, "0"},
		{`any(B.routes, .NextHop == "A")`, "true"},
		{`B.byDest["E"]?.Seq`, "nil"}, // a missing entry; ?. is allowed
		{`B.byDest["D"].Seq`, "3"},
		{`let n = 2; n + B.routes[0].Hops`, "3"},
		{`$env["odd name"].x`, "1"},
		{`1 < 2.5 && "a" < "b"`, "true"},
	} {
		v, err := progs.eval(c.expr, e)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := show(v); got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
	for _, c := range []struct{ expr, err string }{
		{`r`, "r is not a component of the state; it has B, net, odd name"},
		{`r.routes`, "r is not a component"},
		{`$env["nope"]`, "nope is not a component"},
		{`B.rotues[0]`, "no field rotues: the struct has broken, byDest, routes"},
		{`B.routes[0].Zip`, "no field Zip"},
		{`B.routes["D"]`, `cannot index a slice with "D"`},
		{`B.routes[0].Hops < "x"`, "invalid operation"},
		{`len(1)`, "len of 1: not a slice, map or string"},
	} {
		if _, err := progs.eval(c.expr, e); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want %q", c.expr, err, c.err)
		}
	}
	// As a condition nil is false; a number is neither.
	if ok, err := progs.truth(`B.routes[3]?.Valid`, e); ok || err != nil {
		t.Errorf("nil condition: %v, %v", ok, err)
	}
	if _, err := progs.truth(`B.routes[0].Hops`, e); err == nil || !strings.Contains(err.Error(), "not true or false") {
		t.Errorf("a number as a condition: %v", err)
	}
}

// TestPathKeys: a hover is a path only when it is a name followed by fields and constant indexes.
func TestPathKeys(t *testing.T) {
	for code, want := range map[string]string{
		`r`:                   "r []",
		`r.routes[2].NextHop`: "r [routes 2 NextHop]",
		`B.Routes["A"]?.Hops`: "B [Routes A Hops]",
		`$env["odd name"].x`:  "odd name [x]",
		`r.Receive(pk.From)`:  "",
		`err == nil`:          "",
		`r.routes[i]`:         "",
		`len(r.routes)`:       "",
		`-1`:                  "",
		`B.routes[`:           "",
		`$env`:                "",
		`$env[0]`:             "",
		`"text"`:              "",
	} {
		root, keys, ok := pathKeys(code)
		got := ""
		if ok {
			got = root + " " + fmtKeys(keys)
		}
		if got != want {
			t.Errorf("pathKeys(%s) = %q, want %q", code, got, want)
		}
	}
}

func fmtKeys(keys []any) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strings.Trim(show(k), `"`)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// FuzzExpr: no expression makes compiling or evaluating panic (the nil-safe patch rewrites
// every tree expr's parser accepts).
func FuzzExpr(f *testing.F) {
	for _, s := range []string{`B.routes[1].NextHop == "C"`, `len(nil)`, `all(B.x, .y > 1)`, `B?.x[0]`,
		`let a = B; a.routes[0]`, `$env["B"].routes`, `map(B.routes, #index)`, `B.routes[0:1]`, `{"a": 1}.a`} {
		f.Add(s)
	}
	e := newEnv(buildTree([]canon.Leaf{{Path: "B.routes[0].Hops", Value: "1"}, {Path: `B.m["k"]`, Value: "nil"}}))
	f.Fuzz(func(t *testing.T, code string) {
		progs := programs{}
		progs.eval(code, e)
		pathKeys(code)
	})
}
