package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"ratelab/internal/atomicdir"
	"ratelab/internal/outpath"
	"ratelab/internal/printable"
	"ratelab/traces"
	"ratelab/tune"
)

// A log beyond one machine is swept in rounds over its parts (see tune.Summary
// and docs/distributed-tune.md): tune scan and tune sweep are the map stages,
// each worker reading its part (files of a folder, or standard input) and
// writing its result to standard output or --out; tune plan and tune merge the
// reduce stages. A worker's part is --part K/N, or the index an engine sets in
// its environment.

const tuneScanUsage = `
Usage: ratelab tune scan [--trace DIR|FILE|-] [--part K/N] [--parts N] [--name NAME] [--out FILE]
                         [--format …] [--key …] [--periods …] (the flags tune reads a log with)

The first map stage of a sweep over a log partitioned by key: reads this
worker's part and writes a summary of its keys (volumes, peaks, kinds, where each
first appears: a few dozen bytes a key) for ratelab tune plan.` + partHelp

const tuneSweepUsage = `
Usage: ratelab tune sweep --plan FILE [--trace DIR|FILE|-] [--part K/N] [--parts N] [--out FILE]
                          [--memory MiB] [--workers N] [--format …] [--key …] (as tune scan read)

A map stage: replays this worker's part through the plan's policies (those of
tune plan, or the layered pairs of tune merge --pairs) and writes its partial
sweep for ratelab tune merge.` + partHelp

const partHelp = `

The part: --part K/N, or K from the environment an engine sets —
JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), SLURM_ARRAY_TASK_ID (a Slurm
job array, from SLURM_ARRAY_TASK_MIN; N from SLURM_ARRAY_TASK_COUNT) or
RATELAB_PART (anything else: Spark's partition id, xargs) — with N from
--parts, or the number of files of --trace DIR. With --trace DIR (or a pattern)
the worker reads the files whose place in name order is K modulo N; with a FILE
or - (standard input, the default) that one, as the log's K-th file.`

const tunePlanUsage = `
Usage: ratelab tune plan [--out FILE] [--algorithms …] [--periods …] [--points N] [--goal …]
                         [--single] [--rate …] [--burst …] [--holdout …] SUMMARY...

The first reduce stage: merges the summaries of every part (one each) into the
plan every worker sweeps by: the grids, the keys' classes and the bars that make
a key heavy, the keys the report names — what a sweep needs to know of the
whole log, in a few kilobytes.`

const tuneSplitUsage = `
Usage: ratelab tune split --parts N --out DIR [--trace FILE|-] [--format …] [--key …]

Splits a log by key for those who have no engine to partition it: one streaming
pass, any size, each key's lines into one of N parts (by the key's hash, as
--partition K/N), written as DIR/part-00000.log.gz … in the log's own format, a
CSV's header in each. Lines that cannot be read are left out and counted.`

// workerFlags are the flags of a map stage.
type workerFlags struct {
	trace      traceOptions
	part, name string
	parts      int
	out        string
}

func (w *workerFlags) register(fs *flag.FlagSet) {
	w.trace.flags(fs, true, true)
	fs.StringVar(&w.part, "part", "", "this worker's part, `K/N` or K (default: from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or RATELAB_PART)")
	fs.IntVar(&w.parts, "parts", 0, "how many parts, `N`, when the part is given as K alone (default: SLURM_ARRAY_TASK_COUNT, or the files of --trace DIR)")
	fs.StringVar(&w.out, "out", "-", "write the result to `FILE` (- for standard output)")
}

// source is the worker's share of the log, and its part.
func (w *workerFlags) source(cmd string) (tune.Source, tune.Partition, error) {
	if w.trace.file == "" {
		w.trace.file = "-"
	}
	var all tune.Source
	if w.trace.file == "-" {
		all = tune.OneFile("standard input", func() (io.ReadCloser, error) { return io.NopCloser(os.Stdin), nil })
	} else {
		var err error
		if all, err = tune.PartsOf(w.trace.file); err != nil {
			return all, tune.Partition{}, usagef("%s: --trace %v", cmd, err)
		}
	}
	files := 0
	if len(all.Files) > 1 || w.trace.file != "-" && all.Name != all.Files[0].Name {
		files = len(all.Files)
	}
	part, err := partOf(w.part, w.parts, files, os.Getenv)
	if err != nil {
		return all, part, usagef("%s: %v", cmd, err)
	}
	if files == 0 {
		all.Files[0].Rank = part.K // one stream: the log's K-th file
		if w.name != "" {
			all.Name = w.name
		}
		return all, part, nil
	}
	share := all.Share(part)
	if w.name != "" {
		share.Name = w.name
	}
	if len(share.Files) == 0 {
		// a part with no file holds no key: it is summarized and swept as
		// empty, so that every part of N is accounted for
		share.Files = []tune.SourceFile{{Name: fmt.Sprintf("%s (no file of part %s)", all.Name, part), Rank: part.K, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("")), nil }}}
	}
	return share, part, nil
}

// partEnv are the environment variables an engine sets to a worker's index,
// in the order they are read.
var partEnv = []string{"RATELAB_PART", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"}

// partOf is a worker's part: given as K/N or K, else from the environment
// (getenv); N from K/N, parts, SLURM_ARRAY_TASK_COUNT, or files (those of a
// folder given, 0 for standard input or a file).
func partOf(given string, parts, files int, getenv func(string) string) (tune.Partition, error) {
	value, from := given, "--part"
	for _, name := range partEnv {
		if value != "" {
			break
		}
		value, from = strings.TrimSpace(getenv(name)), name
	}
	if value == "" {
		return tune.Partition{}, fmt.Errorf("which part is this worker's? give --part K/N, or run it where an engine sets %s", strings.Join(partEnv, ", "))
	}
	if strings.Contains(value, "/") {
		p, err := tune.ParsePartition(value)
		if err != nil {
			return p, fmt.Errorf("%s: %v", from, err)
		}
		if parts != 0 && parts != p.N {
			return p, fmt.Errorf("%s says %s and --parts %d", from, value, parts)
		}
		return p, nil
	}
	k, err := strconv.Atoi(value)
	if err != nil {
		return tune.Partition{}, fmt.Errorf("%s=%q is not a part number (K, or K/N)", from, value)
	}
	n := parts
	if from == "SLURM_ARRAY_TASK_ID" {
		if lo, err := strconv.Atoi(getenv("SLURM_ARRAY_TASK_MIN")); err == nil {
			k -= lo
		}
		if c, err := strconv.Atoi(getenv("SLURM_ARRAY_TASK_COUNT")); err == nil && n == 0 {
			n = c
		}
	}
	if n == 0 {
		n = files
	}
	if n == 0 {
		return tune.Partition{}, fmt.Errorf("%s gives part %d, but not of how many: give --parts N", from, k)
	}
	return tune.ParsePartition(fmt.Sprintf("%d/%d", k, n))
}

// runTuneScan is ratelab tune scan.
func runTuneScan(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune scan", tuneScanUsage, stderr)
	var w workerFlags
	w.register(fs)
	fs.StringVar(&w.name, "name", "", "the log's `NAME` in the report (default: --trace as given)")
	var periods string
	fs.StringVar(&periods, "periods", "", "`PERIODS` to measure each key's peak over besides 1s, 1m, 1h and 1d (those tune plan --periods will sweep)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var extra []time.Duration
	if periods != "" {
		var err error
		if extra, err = tune.ParsePeriods(periods); err != nil {
			return usagef("--periods: %v", err)
		}
	}
	src, part, err := w.source("tune scan")
	if err != nil {
		return err
	}
	to, err := w.trace.options("tune scan")
	if err != nil {
		return err
	}
	if err := distinct(append(sourcePaths(src), givenPaths(outpath.File("--out", w.out))...)); err != nil {
		return err
	}
	s, err := tune.Scan(src, to, part, extra)
	if err != nil {
		return usageError{err}
	}
	return writeOut("out", w.out, stdout, s.Write)
}

// runTuneSweep is ratelab tune sweep.
func runTuneSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune sweep", tuneSweepUsage, stderr)
	var w workerFlags
	w.register(fs)
	var planPath string
	var memoryMB, workers int
	fs.StringVar(&planPath, "plan", "", "the `FILE` tune plan (or tune merge --pairs) wrote")
	fs.IntVar(&memoryMB, "memory", 512, "`MiB` the part's requests may take in memory; past that they are spilled to disk by key")
	fs.IntVar(&workers, "workers", 0, "policies replayed at once, `N` (default: every core)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if planPath == "" {
		return usagef("tune sweep: --plan FILE is required (the plan tune plan wrote)")
	}
	if memoryMB < 1 || workers < 0 {
		return usagef("tune sweep: --memory must be >= 1 and --workers >= 0")
	}
	src, part, err := w.source("tune sweep")
	if err != nil {
		return err
	}
	to, err := w.trace.options("tune sweep")
	if err != nil {
		return err
	}
	if err := distinct(append(sourcePaths(src), givenPaths(outpath.Input("the plan (--plan)", planPath), outpath.File("--out", w.out))...)); err != nil {
		return err
	}
	plan, err := readPlan(planPath)
	if err != nil {
		return err
	}
	if tune.ReadFingerprint(to) != plan.Sweep.Distributed.Read {
		return usagef("tune sweep: the part is read with other flags than tune scan read it with (format, key, time, spread or exclusions); give the same")
	}
	ctx, stop := interrupts()
	defer stop()
	t, err := tune.LoadSource(src, to, plan.PartLoad(int64(memoryMB)<<20, ""))
	if err != nil {
		return usageError{err}
	}
	defer t.Close()
	bar := newProgressBar(stderr, "policies")
	startWork()
	p, err := tune.SweepPart(ctx, t, plan, part, workers, bar.update)
	bar.done()
	if cause := ctx.Err(); cause != nil {
		return fmt.Errorf("%v; nothing was written", cause)
	}
	if err != nil {
		return sweepError(err)
	}
	return writeOut("out", w.out, stdout, p.Write)
}

// runTunePlan is ratelab tune plan.
func runTunePlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune plan", tunePlanUsage, stderr)
	var o tuneOptions
	o.sweepFlags(fs)
	var out string
	fs.StringVar(&out, "out", "-", "write the plan to `FILE` (- for standard output)")
	files, err := parseFlagsAndArgs(fs, args)
	if err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) {
		o.algorithmsGiven = o.algorithmsGiven || f.Name == "algorithms"
		o.shareGiven = o.shareGiven || f.Name == "share"
		o.headroomGiven = o.headroomGiven || f.Name == "headroom"
	})
	if o.target != "" {
		return usagef("tune plan: --target is not yet swept over a partitioned log; sweep the product's lane with ratelab tune --target over the whole log")
	}
	if len(files) == 0 {
		return usagef("tune plan: name the summaries tune scan wrote, one for every part")
	}
	sweep, err := o.sweep(nil)
	if err != nil {
		return err
	}
	var paths []outpath.Path
	for _, f := range files {
		paths = append(paths, outpath.Input("a summary", f))
	}
	if err := distinct(append(paths, givenPaths(outpath.File("--out", out))...)); err != nil {
		return err
	}
	var sums []*tune.Summary
	for _, name := range files {
		s, err := readFile(name, "a summary tune scan wrote", tune.ReadSummary)
		if err != nil {
			return err
		}
		sums = append(sums, s)
	}
	plan, err := tune.NewPlan(sums, files, sweep)
	if err != nil {
		return usagef("tune plan: %v", err)
	}
	return writeOut("out", out, stdout, plan.Write)
}

// runTuneSplit is ratelab tune split.
func runTuneSplit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune split", tuneSplitUsage, stderr)
	var o traceOptions
	o.flags(fs, true, true)
	var parts int
	var out string
	fs.IntVar(&parts, "parts", 0, "how many parts, `N`")
	fs.StringVar(&out, "out", "", "the `DIR` the parts are written to (made whole or not at all)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.file == "" {
		o.file = "-"
	}
	switch {
	case parts < 1:
		return usagef("tune split: --parts N is required, N from 1")
	case out == "":
		return usagef("tune split: --out DIR is required: the folder the parts are written to")
	case o.exclude != "":
		return usagef("tune split: --exclude is for the stages that read the parts (tune scan and sweep); split copies every line it can read")
	}
	to, err := o.options("tune split")
	if err != nil {
		return err
	}
	open := func() (io.ReadCloser, error) { return os.Open(o.file) }
	name := o.file
	if o.file == "-" {
		name, open = "standard input", func() (io.ReadCloser, error) { return io.NopCloser(os.Stdin), nil }
	} else if err := distinct([]outpath.Path{outpath.Input("the log (--trace)", o.file), outpath.File("--out", out)}); err != nil {
		return err
	}
	return splitInto(out, name, open, to, parts, stdout)
}

// sourcePaths are the files of src as inputs, for distinct.
func sourcePaths(src tune.Source) []outpath.Path {
	var out []outpath.Path
	for _, f := range src.Files {
		if f.Name != "standard input" {
			out = append(out, outpath.Input("the log (--trace)", f.Name))
		}
	}
	return out
}

// readPlan reads a plan file.
func readPlan(path string) (*tune.Plan, error) {
	return readFile(path, "a plan tune plan wrote", tune.ReadPlan)
}

// readFile reads the file path with read, any problem a usage error.
func readFile[T any](path, what string, read func(string, io.Reader) (T, error)) (T, error) {
	var zero T
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return zero, usagef("%s is a folder; give %s", path, what)
	}
	f, err := os.Open(path)
	if err != nil {
		return zero, usageError{err}
	}
	defer f.Close()
	v, err := read(path, bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return zero, usageError{err}
	}
	return v, nil
}

// writeOut writes with write to path (- for standard output), a file whole or
// not at all.
func writeOut(flagName, path string, stdout io.Writer, write func(io.Writer) error) error {
	out, err := openOutput(flagName, path, stdout)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := write(out.w); err != nil {
		return err
	}
	return out.Commit()
}

// splitInto splits the log into parts written to the folder out, made whole or
// not at all, and says what went where.
func splitInto(out, name string, open func() (io.ReadCloser, error), to traces.Options, parts int, stdout io.Writer) error {
	d, err := atomicdir.Create(out)
	if err != nil {
		return usagef("tune split: --out %v", err)
	}
	defer d.Abort()
	st, err := tune.Split(name, open, to, parts, func(file string) (io.WriteCloser, error) {
		return os.Create(filepath.Join(d.Path(), file))
	})
	if err != nil {
		return usageError{err}
	}
	if err := d.Commit(); err != nil {
		return err
	}
	var keys int64
	for _, k := range st.Keys {
		keys += k
	}
	fmt.Fprintf(stdout, "%s (%s): %d requests from %d keys split into %d parts in %s\n", printable.String(name), printable.String(st.Format.Layout), st.Stats.Rows, keys, parts, printable.String(out))
	for k := range parts {
		fmt.Fprintf(stdout, "  %s  %d requests, %d keys\n", tune.SplitName(k, st.Format.Format), st.Parts[k], st.Keys[k])
	}
	if n := st.Stats.Unparsed; n > 0 {
		p := st.Stats.Shown[0]
		fmt.Fprintf(stdout, "%d lines could not be read and were left out (first: %s: %s)\n", n, printable.String(p.Where(name)), printable.String(p.Why))
	}
	return nil
}
