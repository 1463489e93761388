package main

import (
	"fmt"
	"os"
	"path/filepath"

	"ratelab/internal/outpath"
	"ratelab/sim"
)

// distinct refuses outputs that would harm an input or each other (package
// outpath) before anything runs, as a usage error naming both.
func distinct(paths []outpath.Path) error {
	if err := outpath.Distinct(paths); err != nil {
		return usageError{err}
	}
	return nil
}

// stdinInput is the file standard input reads, as an input no output may
// harm, when it is a file (--trace - < FILE); none for a pipe or a terminal,
// or where /proc does not name it.
func stdinInput() []outpath.Path {
	info, err := os.Stdin.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	path, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", os.Stdin.Fd()))
	if err != nil || !filepath.IsAbs(path) {
		return nil
	}
	return []outpath.Path{outpath.Input("standard input (--trace -)", path)}
}

// givenPaths are the files and folders given, those not empty and not standard
// output (-).
func givenPaths(paths ...outpath.Path) []outpath.Path {
	var out []outpath.Path
	for _, p := range paths {
		if p.Path != "" && p.Path != "-" {
			out = append(out, p)
		}
	}
	return out
}

// inputsOf are the files cfg was read from (sim.Config.Files), each named for a
// message by what the command line called it (named: path → name, --file's,
// --trace's…), or as a file the scenario reads.
func inputsOf(cfg *sim.Config, named map[string]string) []outpath.Path {
	var in []outpath.Path
	for _, f := range cfg.Files {
		what, ok := named[f]
		if !ok {
			what = fmt.Sprintf("a file of scenario %q", cfg.Name)
		}
		in = append(in, outpath.Input(what, f))
	}
	return in
}
