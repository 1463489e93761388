package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// errHelp says --help was asked for and answered: exit 0.
var errHelp = errors.New("help shown")

// newFlags returns a flag set for a command that prints its usage to stderr and
// reports bad flags as usage errors.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nFlags:\n", strings.TrimSpace(usage))
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs; --help is errHelp, anything else wrong a usage
// error (flag has already printed what was wrong and the usage).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q; flags start with --", fs.Name(), fs.Arg(0))
	}
	return nil
}

// notEmpty refuses a flag among names that was given an empty value (--csv ""),
// which would otherwise be taken as not given at all.
func notEmpty(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && f.Value.String() == "" && slices.Contains(names, f.Name) {
			err = usagef("%s: --%s is empty; give a value or leave the flag out", fs.Name(), f.Name)
		}
	})
	return err
}
