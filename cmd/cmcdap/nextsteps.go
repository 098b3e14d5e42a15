package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/store"
)

// After a check stores a trace, the user's next move is to look at it: the check says how, in
// the terminal, in a browser and in VS Code, with the arguments this check used.

// nextTrace is the trace to suggest: the first violation's, else a kept walk's; 0 when none.
func nextTrace(res *engine.Result, ids []int64) int64 {
	if len(ids) == 0 || len(res.Violations) == 0 && res.Walk == nil {
		return 0
	}
	return ids[0]
}

// writeNextSteps prints the commands that open trace id. db is the -db flag as given ("" for
// the default database), pkg the package argument: serve draws heap graphs with its code. A
// URL is printed without its password.
func writeNextSteps(w io.Writer, id int64, db, pkg string) {
	if id == 0 {
		return
	}
	db = store.Printable(db)
	dbArg := ""
	if db != "" {
		dbArg = " -db " + shellQuote(db)
	}
	fmt.Fprintf(w, "\nnext:\n")
	fmt.Fprintf(w, "  cmcdap trace show%s %d    (print the trace step by step)\n", dbArg, id)
	fmt.Fprintf(w, "  cmcdap serve%s -pkg %s -open    (heap graph, diff and sequence chart in a browser: click trace %d)\n", dbArg, shellQuote(pkg), id)
	vscode := fmt.Sprintf("  in VS Code: CMC: Open Trace in the Command Palette, trace %d (or click #%d in the CMC Traces view)", id, id)
	if db != "" {
		vscode += fmt.Sprintf(", with the cmc.db setting set to %s", db)
	}
	fmt.Fprintln(w, vscode)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`&|;<>()*?[]#~{}!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
