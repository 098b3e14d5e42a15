package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/store/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestCheckIntoPostgres: check stores AODVSpecBug's loop in a PostgreSQL database given as
// -db URL; traces lists it and trace show prints it from there. The password is printed
// nowhere: the URL is shown without it.
func TestCheckIntoPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker binaries")
	}
	db := pgtest.DB(t)
	password := pgtest.Start(t).Password
	shown := store.Printable(db)
	f := checkFlags{model: "AODVSpecBug", params: settings{}, quiet: true, db: db, run: service.RunSettings{Search: "dfs"}}
	var out, errb bytes.Buffer
	code, err := check(context.Background(), &f, "../../examples/aodv", &out, &errb)
	if err != nil || code != 1 {
		t.Fatalf("check: exit %d, %v\n%s%s", code, err, out.String(), errb.String())
	}
	for _, want := range []string{"stored as trace 1 in " + shown, "cmcdap trace show -db " + shown + " 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check output lacks %q:\n%s", want, out.String())
		}
	}

	code, list, errs := runCmd(tracesCommand, "-db", db)
	if code != 0 || !strings.Contains(list, "AODVSpecBug") || !strings.Contains(list, "invariant") {
		t.Errorf("traces: exit %d\n%s%s", code, list, errs)
	}
	code, show, errs := runCmd(traceShowCommand, "-db", db, "1")
	if code != 0 || !strings.Contains(show, "AODVSpecBug") || !strings.Contains(show, "violation") {
		t.Errorf("trace show: exit %d\n%s%s", code, show, errs)
	}
	for name, text := range map[string]string{"check": out.String() + errb.String(), "traces": list, "trace show": show} {
		if strings.Contains(text, password) {
			t.Errorf("%s printed the password:\n%s", name, text)
		}
	}
}

// A database that is not there: one line naming it, without the password.
func TestTracesPostgresUnreachable(t *testing.T) {
	code, out, errs := runCmd(tracesCommand, "-db", "postgres://cmc:s3cret@127.0.0.1:1/cmc")
	want := "cmcdap traces: store: cannot reach postgres://cmc@127.0.0.1:1/cmc: "
	if code != 2 || out != "" || !strings.HasPrefix(errs, want) || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "s3cret") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line starting %q", code, out, errs, want)
	}
}

// serve opens a PostgreSQL database as it opens a file, and names it without the password.
func TestServePostgres(t *testing.T) {
	db := pgtest.DB(t)
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, cancel, done := startServe(t, db)
	cancel()
	<-done
	if want := "cmcdap serve: views of " + store.Printable(db) + " at "; !strings.Contains(out.String(), want) ||
		strings.Contains(out.String(), pgtest.Start(t).Password) {
		t.Errorf("serve printed %q; want %q... and no password", out.String(), want)
	}
}
