package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
)

// Every subcommand parses its arguments the same way: flags may come before or after the
// positional arguments (cmcdap check ./pkg -depth 3, cmcdap trace show 3 -json), "--" ends the
// flags, and a bad flag or value is one line naming the command, exit 2, never a usage dump.

// errHelp is returned for -h: the flags were printed; exit 0.
var errHelp = errors.New("help")

// parseFlags parses args with fs and returns the positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				fmt.Fprintf(out, "flags of cmcdap %s:\n", fs.Name())
				fs.PrintDefaults()
				return nil, errHelp
			}
			return nil, fmt.Errorf("%v: cmcdap %s -h lists the flags", err, fs.Name())
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		if i := len(args) - fs.NArg() - 1; i >= 0 && args[i] == "--" { // everything after -- is positional
			return append(pos, fs.Args()...), nil
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
}

// flagError is the exit code for a parseFlags error: 0 for -h, else the one line and 2.
func flagError(stderr io.Writer, name string, err error) int {
	if errors.Is(err, errHelp) {
		return 0
	}
	return fail(stderr, name, err)
}

// A bound is a checked numeric flag: what it may be and what to write instead.

// atLeast refuses v < min for flag name; hint says what the flag means at its least.
func atLeast[T int | int64](name string, v, min T, hint string) error {
	if v < min {
		return fmt.Errorf("-%s %d: want %d or more (%s)", name, v, min, hint)
	}
	return nil
}

// positiveSeconds refuses a deadline that is not a positive number of seconds.
func positiveSeconds(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return fmt.Errorf("-%s %v: want a positive number of seconds, e.g. -%s 10", name, v, name)
	}
	return nil
}
