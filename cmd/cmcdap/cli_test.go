package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestBadArguments is every bad argument the commands refuse: each is one line on stderr that
// says what to do, nothing on stdout, exit 2. DB in an argument is a database with one 1-step
// trace. Flags may follow the positional arguments in every command.
func TestBadArguments(t *testing.T) {
	db, _ := tracesDB(t)
	for _, c := range []struct {
		args string
		want string
	}{
		{"nosuch", `cmcdap: unknown command "nosuch": cmcdap help lists the commands`},
		{"trace list", `cmcdap: unknown command "trace list": cmcdap help lists the commands`},
		{"trace", `cmcdap trace: say what to do with a trace: cmcdap trace show ID (cmcdap traces lists them)`},
		// check
		{"check", "cmcdap check: give one package, e.g. cmcdap check ./examples/aodv"},
		{"check ./a ./b", "cmcdap check: give one package, e.g. cmcdap check ./examples/aodv"},
		{"check -nosuch ./a", "cmcdap check: flag provided but not defined: -nosuch: cmcdap check -h lists the flags"},
		{"check ./a -depth -1", "cmcdap check: -depth -1: want 0 or more (0 means no bound)"},
		{"check -depth x ./a", `cmcdap check: invalid value "x" for flag -depth: parse error: cmcdap check -h lists the flags`},
		{"check -states -5 ./a", "cmcdap check: -states -5: want 0 or more (0 means no bound)"},
		{"check -steps 0 ./a", "cmcdap check: -steps 0: want 1 or more (the length of a random walk)"},
		{"check -steps -3 ./a", "cmcdap check: -steps -3: want 1 or more (the length of a random walk)"},
		{"check -deadline 0 ./a", "cmcdap check: -deadline 0: want a positive number of seconds, e.g. -deadline 10"},
		{"check -selfcheck -2 ./a", "cmcdap check: -selfcheck -2: want -1 or more (0 means none, -1 every transition)"},
		{"check -workers -1 ./a", "cmcdap check: -workers -1: want 0 or more (0 means one per core, 1 a single one)"},
		{"check -deadline -2 ./a", "cmcdap check: -deadline -2: want a positive number of seconds, e.g. -deadline 10"},
		{"check -deadline NaN ./a", "cmcdap check: -deadline NaN: want a positive number of seconds, e.g. -deadline 10"},
		{"check -deadline Inf ./a", "cmcdap check: -deadline +Inf: want a positive number of seconds, e.g. -deadline 10"},
		{"check -search bfz ./a", `cmcdap check: -search "bfz": want bfs, dfs, random, best, deepen, swarm`},
		{"check -set nodes ./a", `cmcdap check: invalid value "nodes" for flag -set: want KEY=VALUE, e.g. -set nodes=3: cmcdap check -h lists the flags`},
		// replay
		{"replay", "cmcdap replay: give one trace id (cmcdap replay 3) or -trace FILE.json"},
		{"replay x", `cmcdap replay: "x" is not a trace id: give the number cmcdap check printed, e.g. cmcdap replay 3`},
		{"replay 0", `cmcdap replay: "0" is not a trace id: give the number cmcdap check printed, e.g. cmcdap replay 3`},
		{"replay 1 -to -1", "cmcdap replay: -to -1: want 0 or more (the number of steps to replay; 0 means all)"},
		{"replay 1 -db DB -to 5", "cmcdap replay: -to 5: trace 1 (aodv) has 1 step: give -to 1 to 1, or leave it out to replay all"},
		// minimize, export-test
		{"minimize", "cmcdap minimize: give one trace id, e.g. cmcdap minimize 3 (cmcdap traces lists them)"},
		{"minimize -1", "cmcdap minimize: flag provided but not defined: -1: cmcdap minimize -h lists the flags"},
		{"minimize 1 -states 0", "cmcdap minimize: -states 0: want 1 or more (the bound of the breadth-first search)"},
		{"minimize 1 -states -4", "cmcdap minimize: -states -4: want 1 or more (the bound of the breadth-first search)"},
		{"export-test abc", `cmcdap export-test: "abc" is not a trace id: give the number cmcdap traces lists`},
		{"export-test 1 2", "cmcdap export-test: give one trace id, e.g. cmcdap export-test 3 (cmcdap traces lists them)"},
		// the database commands
		{"traces 3", `cmcdap traces: unexpected argument "3": to see one trace, use cmcdap trace show 3`},
		{"traces -x", "cmcdap traces: flag provided but not defined: -x: cmcdap traces -h lists the flags"},
		{"trace show", "cmcdap trace show: give one trace id, e.g. cmcdap trace show 3 (cmcdap traces lists them)"},
		{"trace show -2", "cmcdap trace show: flag provided but not defined: -2: cmcdap trace show -h lists the flags"},
		{"trace show 0", `cmcdap trace show: "0" is not a trace id: give the number cmcdap traces lists`},
		{"trace show 9 -db DB", "cmcdap trace show: no trace 9 in DB: cmcdap traces lists them"},
		{"bookmarks x", `cmcdap bookmarks: unexpected argument "x"`},
		// servers
		{"serve x.db", `cmcdap serve: unexpected argument "x.db": give the database with -db FILE`},
		{"serve -addr 0.0.0.0:0", "cmcdap serve: views: 0.0.0.0:0 is not a loopback address: anyone who can reach it sees your program's state in the views; use 127.0.0.1, or -allow-remote if you mean it"},
		{"dap -listen 0.0.0.0:4711", "cmcdap dap: 0.0.0.0:4711 is not a loopback address: anyone who can reach it and has the token can make cmcdap build and run code on this machine; use 127.0.0.1, or -allow-remote if you mean it"},
		{"dap -listen 4711", `cmcdap dap: address "4711": address 4711: missing port in address (want HOST:PORT, e.g. 127.0.0.1:0)`},
		{"dap -token abc", "cmcdap dap: -token and -allow-remote go with -listen ADDR; over stdin/stdout no token is needed"},
		{"dap extra", `cmcdap dap: unexpected argument "extra": dap takes only flags`},
		// models
		{"models a b", "cmcdap models: give one package (a directory or import path), e.g. cmcdap models ./examples/aodv"},
		{"models ./testdata/nomodel", "cmcdap models: package ./testdata/nomodel registers no models: call cmc.Register(name, build) in an init function"},
	} {
		t.Run(c.args, func(t *testing.T) {
			if strings.HasPrefix(c.args, "models ./") && testing.Short() {
				t.Skip("builds a worker")
			}
			var args []string
			for _, a := range strings.Fields(c.args) {
				args = append(args, strings.ReplaceAll(a, "DB", db))
			}
			var out, errb bytes.Buffer
			code := run(args, &out, &errb)
			want := strings.ReplaceAll(c.want, "DB", db) + "\n"
			if code != 2 || errb.String() != want || out.Len() != 0 {
				t.Errorf("exit %d\nstderr %q\nstdout %q\nwant exit 2 and stderr %q", code, errb.String(), out.String(), want)
			}
		})
	}
}

// TestFlagsAfterArguments: every command takes its flags after its arguments too, and -- ends
// the flags.
func TestFlagsAfterArguments(t *testing.T) {
	db, _ := tracesDB(t)
	for _, args := range [][]string{
		{"trace", "show", "1", "-db", db, "-json"},
		{"trace", "show", "-db", db, "1", "-json"},
		{"traces", "-db", db, "-json"},
		{"trace", "show", "-db", db, "-json", "--", "1"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "{") && !strings.HasPrefix(out.String(), "[") {
			t.Errorf("%q: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
	}
}
