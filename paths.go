package main

import (
	"fmt"

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
