// Command cmcdap is the coordinator of cmc: it checks models (building the user's package into a
// worker process), stores traces, replays them, serves the Debug Adapter Protocol to editors and
// the views to browsers. With no arguments it speaks DAP on stdin/stdout, as VS Code starts it.
package main

import (
	"fmt"
	"os"
	"sort"
)

// A command is one subcommand: it parses its own flags and returns the process exit code
// (0 success, 1 a violation or failed check, 2 usage or build error).
type command struct {
	run   func(args []string) int
	usage string
}

var commands = map[string]command{}

func main() {
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "" { // how some DAP clients start an adapter with no arguments
		args = nil
	}
	if len(args) == 0 {
		os.Exit(commands["dap"].run(nil))
	}
	name := args[0]
	if name == "trace" && len(args) > 1 { // two-word commands: trace show
		name, args = "trace "+args[1], args[1:]
	}
	c, ok := commands[name]
	if !ok {
		if name != "help" && name != "-h" && name != "--help" {
			fmt.Fprintf(os.Stderr, "cmcdap: unknown command %q\n", args[0])
		}
		usage()
		os.Exit(2)
	}
	os.Exit(c.run(args[1:]))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cmcdap [command] [flags]   (no command: serve DAP on stdin/stdout)")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-12s %s\n", n, commands[n].usage)
	}
}
