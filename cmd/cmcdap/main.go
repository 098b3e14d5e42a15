// Command cmcdap is the coordinator of cmc: it checks models (building the user's package into a
// worker process), stores traces, replays them, serves the Debug Adapter Protocol to editors and
// the views to browsers. With no arguments it speaks DAP on stdin/stdout, as VS Code starts it.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// A command is one subcommand: it parses its own flags and returns the process exit code
// (0 success, 1 a violation or failed check, 2 usage or build error).
type command struct {
	run   func(args []string, stdout, stderr io.Writer) int
	usage string
}

var commands = map[string]command{}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command args name and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "" { // how some DAP clients start an adapter with no arguments
		args = nil
	}
	if len(args) == 0 {
		return commands["dap"].run(nil, stdout, stderr)
	}
	name := args[0]
	if name == "trace" && len(args) > 1 { // two-word commands: trace show
		name, args = "trace "+args[1], args[1:]
	}
	switch name {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "trace":
		return fail(stderr, "trace", errors.New("say what to do with a trace: cmcdap trace show ID (cmcdap traces lists them)"))
	}
	c, ok := commands[name]
	if !ok {
		return fail(stderr, "", fmt.Errorf("unknown command %q: cmcdap help lists the commands", name))
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: cmcdap [command] [flags] [arguments]   (no command: serve DAP on stdin/stdout)")
	fmt.Fprintln(w, "flags may also follow the arguments; cmcdap COMMAND -h lists a command's flags")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].usage)
	}
}
