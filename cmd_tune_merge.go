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
Usage: ratelab tune merge [--csv PATH|-] [--json PATH|-] [--pairs FILE] FILE...

Adds up the partial sweeps ratelab tune --partition K/N --partial FILE or
ratelab tune sweep wrote, one for every part, and prints the report one run
over every key prints, byte for byte (for --partition, the same as ratelab tune
--single with the same flags). The first round of a sweep of a partitioned log
with layered pairs merges into the pairs' round's plan instead (--pairs FILE).`

// runTuneMerge is ratelab tune merge.
func runTuneMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune merge", tuneMergeUsage, stderr)
	var csvPath, jsonPath string
	fs.StringVar(&csvPath, "csv", "", "write the whole grid as CSV to `PATH` (- for standard output)")
	fs.StringVar(&jsonPath, "json", "", "write the whole grid as JSON to `PATH` (- for standard output)")
	var pairsPath string
	fs.StringVar(&pairsPath, "pairs", "", "for the first round of a partitioned sweep with layered pairs: write the pairs' round's plan to `FILE` (- for standard output) for tune sweep")
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
	if err := notEmpty(fs, "csv", "json", "pairs"); err != nil {
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
	if err := distinct(append(paths, givenPaths(outpath.File("--csv", csvPath), outpath.File("--json", jsonPath), outpath.File("--pairs", pairsPath))...)); err != nil {
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
	switch needs := tune.NeedsPairs(parts); {
	case needs && pairsPath == "":
		return usagef("tune merge: these are the first round of a sweep with layered pairs: give --pairs FILE to plan the pairs' round (then tune sweep --plan FILE on every part, and tune merge its partials), or plan with --single")
	case needs && (csvPath != "" || jsonPath != ""):
		return usagef("tune merge --pairs plans the pairs' round; --csv and --json go to the merge of that round's partials")
	case needs:
		plan, err := tune.NextRound(parts, files)
		if err != nil {
			return usagef("tune merge: %v", err)
		}
		return writeOut("pairs", pairsPath, stdout, plan.Write)
	case pairsPath != "":
		return usagef("tune merge: --pairs plans the layered pairs' round of a partitioned sweep's first round; these partials are merged into the report (drop --pairs)")
	}
	rep, err := tune.Merge(parts, files)
	if err != nil {
		return usagef("tune merge: %v", err)
	}
	if d := parts[0].Distributed; d != nil && d.Holdout > 0 {
		fmt.Fprintln(stderr, "ratelab: note: "+rep.NoBackTest)
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
