package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"ratelab/internal/outpath"
	"ratelab/tune"
)

const tuneMergeUsage = `
Usage: ratelab tune merge [--csv PATH|-] [--json PATH|-] FILE...

Adds up the partial sweeps ratelab tune --partition K/N --partial FILE wrote, one
for every K of N, and prints the report one run over every key prints (the same
as ratelab tune --single with the same flags), byte for byte.`

// runTuneMerge is ratelab tune merge.
func runTuneMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune merge", tuneMergeUsage, stderr)
	var csvPath, jsonPath string
	fs.StringVar(&csvPath, "csv", "", "write the whole grid as CSV to `PATH` (- for standard output)")
	fs.StringVar(&jsonPath, "json", "", "write the whole grid as JSON to `PATH` (- for standard output)")
	// the files, with the flags before, between or after them
	var files []string
	for rest := args; ; {
		if err := parseFlags(fs, rest); err != nil && fs.NArg() == 0 {
			return err
		}
		if rest = fs.Args(); len(rest) == 0 {
			break
		}
		files, rest = append(files, rest[0]), rest[1:]
	}
	if err := notEmpty(fs, "csv", "json"); err != nil {
		return err
	}
	switch {
	case len(files) == 0:
		return usagef("tune merge: name the partial sweeps to merge, one for every partition")
	case csvPath == "-" && jsonPath == "-":
		return usagef("tune merge: --csv - and --json - would both write to standard output; send one to a file")
	}
	var paths []outpath.Path
	for _, f := range files {
		paths = append(paths, outpath.Input("a partial sweep", f))
	}
	if err := distinct(append(paths, givenPaths(outpath.File("--csv", csvPath), outpath.File("--json", jsonPath))...)); err != nil {
		return err
	}
	var parts []*tune.Partial
	for _, name := range files {
		if info, err := os.Stat(name); err == nil && info.IsDir() {
			return usagef("tune merge: %s is a directory; give the partial files in it (those tune --partition K/N --partial FILE wrote)", name)
		}
		f, err := os.Open(name)
		if err != nil {
			return usageError{err}
		}
		p, err := tune.ReadPartial(name, bufio.NewReaderSize(f, 1<<20))
		f.Close()
		if err != nil {
			return usageError{err}
		}
		parts = append(parts, p)
	}
	for i, p := range parts[1:] {
		if p.Target != parts[0].Target {
			return usagef("tune merge: %s is a sweep for --target %q and %s for %q; merge the partials of one sweep", files[0], parts[0].Target, files[i+1], p.Target)
		}
	}
	if parts[0].Target != "" {
		tgt, err := targetFor(parts[0].Target)
		if err != nil {
			return usagef("tune merge: %s: a damaged partial sweep: Target %q is no product tune writes for; run its tune --partition again", files[0], parts[0].Target)
		}
		if err := tgt.swept(parts[0]); err != nil {
			return usagef("tune merge: %s: a damaged partial sweep: %v; run its tune --partition again", files[0], err)
		}
	}
	rep, err := tune.Merge(parts, files)
	if err != nil {
		return usagef("tune merge: %v", err)
	}
	report := stdout
	if csvPath == "-" || jsonPath == "-" {
		report = stderr
	}
	if err := writeReport(rep, csvPath, jsonPath, report, stdout); err != nil {
		return err
	}
	if parts[0].Target != "" {
		tgt, _ := targetFor(parts[0].Target)
		_, err = fmt.Fprint(report, "\n"+tgt.snippet(rep, parts[0].TraceKey))
		return err
	}
	return nil
}
