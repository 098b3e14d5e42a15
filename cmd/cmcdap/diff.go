package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cmc-go/cmc/engine"
	"github.com/cmc-go/cmc/internal/service"
	"github.com/cmc-go/cmc/store"
	"github.com/cmc-go/cmc/tracefmt"
)

func init() {
	commands["diff"] = command{run: diffCommand,
		usage: "compare two stored traces: where they part, and how their states differ from there: diff [-db FILE] [-json] [-steps N] TRACE TRACE"}
}

// maxStateLines caps the state differences printed for one step; -json has them all.
const maxStateLines = 20

func diffCommand(args []string, stdout, stderr io.Writer) int {
	steps := 20
	f, pos, code, ok := parseDBFlags("diff", args, stderr, func(fs *flag.FlagSet) {
		fs.IntVar(&steps, "steps", steps, "show at most `n` steps from the first that differs (0: all)")
	})
	if !ok {
		return code
	}
	if len(pos) != 2 {
		return fail(stderr, "diff", errors.New("give two trace ids, e.g. cmcdap diff 1 3 (cmcdap traces lists them)"))
	}
	var ids [2]int64
	for i, p := range pos {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil || id < 1 {
			return fail(stderr, "diff", fmt.Errorf("%q is not a trace id: give the numbers cmcdap traces lists", p))
		}
		ids[i] = id
	}
	db, err := openTraceDB(f.db, false)
	if err != nil {
		return fail(stderr, "diff", err)
	}
	defer db.Close()
	for _, id := range ids {
		if _, err := db.TraceInfo(id); errors.Is(err, store.ErrNotFound) {
			return fail(stderr, "diff", fmt.Errorf("no trace %d in %s: cmcdap traces lists them", id, db.Path()))
		}
	}
	c, err := service.Compare(db, ids[0], ids[1], max(steps, 0))
	if err != nil {
		return fail(stderr, "diff", err)
	}
	if f.jsonOut {
		return printJSON(stdout, stderr, "diff", c)
	}
	writeComparison(stdout, c)
	return 0
}

// writeComparison prints a comparison for people:
//
//	trace 1: AODVSpecBug, 16 steps, invariant NoRoutingLoop: routing loop towards D: A -> B -> A
//	trace 4: AODV, 12 steps
//	the same first 11 steps
//	12  1: A  receive  choose 1/2: deliver RERR C→A
//	    4: A  receive  choose 1/2: deliver RERR C→A
//	    state after 12: 3 differences (1 -> 4)
//	      ~ A.routes[Dest=D].Valid  false -> true
func writeComparison(w io.Writer, c service.Comparison) {
	for _, s := range []service.TraceSide{c.A, c.B} {
		fmt.Fprintf(w, "trace %d: %s, %s", s.ID, s.Model, plural(s.Steps, "step"))
		if s.Violation != "" {
			fmt.Fprintf(w, ", %s", s.Violation)
		}
		fmt.Fprintln(w)
	}
	switch {
	case c.Same < 0:
		fmt.Fprintln(w, "the initial states differ")
	case len(c.Steps) == 0:
		fmt.Fprintf(w, "the same %s: the traces are alike\n", plural(c.Same, "step"))
		return
	default:
		fmt.Fprintf(w, "the same first %s\n", plural(c.Same, "step"))
	}
	num := len(strconv.Itoa(c.Steps[len(c.Steps)-1].N))
	indent := strings.Repeat(" ", num+2)
	for _, p := range c.Steps {
		if p.N == 0 {
			fmt.Fprintf(w, "%*d  the initial states\n", num, 0)
		} else {
			fmt.Fprintf(w, "%*d  %d: %s\n", num, p.N, c.A.ID, describe(p.A))
			fmt.Fprintf(w, "%s%d: %s\n", indent, c.B.ID, describe(p.B))
		}
		if len(p.State) == 0 {
			fmt.Fprintf(w, "%sthe same state after %d\n", indent, p.N)
			continue
		}
		what := fmt.Sprintf("state after %d", p.N)
		if p.N == 0 {
			what = "initial state"
		}
		fmt.Fprintf(w, "%s%s: %d differences (%d -> %d)\n", indent, what, len(p.State), c.A.ID, c.B.ID)
		pathW := 0
		for _, ch := range p.State {
			pathW = max(pathW, min(len(ch.Path), 40))
		}
		for i, ch := range p.State {
			if i == maxStateLines {
				fmt.Fprintf(w, "%s  … %d more (-json lists them all)\n", indent, len(p.State)-i)
				break
			}
			fmt.Fprintf(w, "%s  %s\n", indent, tracefmt.Change(ch, pathW))
		}
	}
	if c.More > 0 {
		fmt.Fprintf(w, "… %s more (-steps 0 shows them all)\n", plural(c.More, "step"))
	}
}

// describe says what a step did in one line, or that the trace has ended.
func describe(st *engine.Step) string {
	if st == nil {
		return "(ended)"
	}
	s := st.Proc + "  " + st.Event
	for _, c := range st.Choices {
		s += "  choose " + c.String()
	}
	return s
}

// plural says n things: "1 step", "16 steps".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
