package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"ratelab/internal/format"
	"ratelab/internal/outpath"
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
whole log, in tens of kilobytes (the report's header and the policies).`

// workerFlags are the flags of a map stage.
type workerFlags struct {
	trace      traceOptions
	part, name string
	parts      int
	out        string
}

func (w *workerFlags) register(fs *flag.FlagSet) {
	w.trace.flags(fs, true, true)
	fs.Lookup("trace").Usage = "the log: a folder `DIR` of its parts or a quoted pattern (the worker reads its part's files), a FILE, or - for standard input (the default)"
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

// open is what a map stage needs before its work: its share of the log and its
// part, how to read it, and its output, opened now (a path that cannot be
// written is said at once), none of it over the log's files or the other
// inputs given.
func (w *workerFlags) open(cmd string, stdout io.Writer, inputs ...outpath.Path) (src tune.Source, part tune.Partition, to traces.Options, out *output, err error) {
	if src, part, err = w.source(cmd); err != nil {
		return
	}
	if to, err = w.trace.options(cmd); err != nil {
		return
	}
	if err = logApart(w.trace.file, append(inputs, outpath.File("--out", w.out))...); err != nil {
		return
	}
	out, err = openOutput("out", w.out, stdout)
	return
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
		slurm := func(name string) (int, bool, error) {
			v := strings.TrimSpace(getenv(name))
			if v == "" {
				return 0, false, nil
			}
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 || i > 1<<30 {
				return 0, false, fmt.Errorf("%s=%q is not a task number Slurm sets", name, v)
			}
			return i, true, nil
		}
		lo, ok, err := slurm("SLURM_ARRAY_TASK_MIN")
		switch {
		case err != nil:
			return tune.Partition{}, err
		case ok && k < lo:
			return tune.Partition{}, fmt.Errorf("SLURM_ARRAY_TASK_ID %d is below SLURM_ARRAY_TASK_MIN %d", k, lo)
		case ok:
			k -= lo
		}
		c, ok, err := slurm("SLURM_ARRAY_TASK_COUNT")
		switch {
		case err != nil:
			return tune.Partition{}, err
		case ok && c == 0:
			return tune.Partition{}, fmt.Errorf("SLURM_ARRAY_TASK_COUNT is 0")
		case ok && n == 0:
			n = c
		}
	}
	if n == 0 {
		n = files
	}
	if n == 0 {
		return tune.Partition{}, fmt.Errorf("%s gives part %d, but not of how many: give --parts N", from, k)
	}
	p, err := tune.ParsePartition(fmt.Sprintf("%d/%d", k, n))
	if err != nil {
		return p, fmt.Errorf("%s: %v", from, err)
	}
	return p, nil
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
	if err := notEmpty(fs, "trace", "part", "out", "name", "periods"); err != nil {
		return err
	}
	_, stop := interrupts() // a signal while the log is read: nothing written, said so
	defer stop()
	var extra []time.Duration
	if periods != "" {
		var err error
		if extra, err = tune.ParsePeriods(periods); err != nil {
			return usagef("--periods: %v", err)
		}
	}
	src, part, to, out, err := w.open("tune scan", stdout)
	if err != nil {
		return err
	}
	defer out.Abort()
	s, err := tune.Scan(src, to, part, extra)
	if err != nil {
		return usageError{err}
	}
	return writeTo(out, s.Write)
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
	if err := notEmpty(fs, "trace", "part", "out"); err != nil {
		return err
	}
	if planPath == "" {
		return usagef("tune sweep: --plan FILE is required (the plan tune plan wrote)")
	}
	ctx, stop := interrupts()
	defer stop()
	if memoryMB < 1 || workers < 0 {
		return usagef("tune sweep: --memory must be >= 1 and --workers >= 0")
	}
	src, part, to, out, err := w.open("tune sweep", stdout, outpath.Input("the plan (--plan)", planPath))
	if err != nil {
		return err
	}
	defer out.Abort()
	plan, err := readPlan(planPath)
	if err != nil {
		return err
	}
	if tune.ReadFingerprint(to) != plan.Sweep.Distributed.Read {
		return usagef("tune sweep: the part is read with other flags than tune scan read it with (format, key, time, spread or exclusions); give the same")
	}
	t, err := tune.LoadSource(src, to, plan.PartLoad(int64(memoryMB)<<20, ""))
	if err != nil {
		return usageError{err}
	}
	defer t.Close()
	bar := newProgressBar(stderr, "policies")
	startWork()
	p, err := tune.SweepPart(ctx, t, plan, part, workers, bar.update)
	bar.done()
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%v; nothing was written", cause)
	}
	if err != nil {
		return sweepError(err)
	}
	return writeTo(out, p.Write)
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
	if err := notEmpty(fs, "out"); err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) {
		o.algorithmsGiven = o.algorithmsGiven || f.Name == "algorithms"
		o.shareGiven = o.shareGiven || f.Name == "share"
		o.headroomGiven = o.headroomGiven || f.Name == "headroom"
	})
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
	o2, err := openOutput("out", out, stdout)
	if err != nil {
		return err
	}
	defer o2.Abort()
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
	if h := plan.Sweep.Distributed.Holdout; h > 0 {
		fmt.Fprintf(stderr, "ratelab: note: a sweep of a partitioned log is not back-tested (one run over the whole log fits on all but its last %s and scores on it); --holdout -1s says none is wanted\n", h)
	}
	return writeTo(o2, plan.Write)
}

// logApart refuses outputs that would harm the log at path (a file, or every
// file of a folder or a pattern: see tune.PartsOf) or each other, and any
// output that would land among the log's parts (inside its folder, or matched
// by its pattern), where the next read would take it for one. A log that
// cannot be listed is left to the read to report; "-" is standard input (the
// file it reads, when it is one).
func logApart(path string, outputs ...outpath.Path) error {
	outputs = givenPaths(outputs...)
	var paths []outpath.Path
	pattern := tune.IsPattern(path)
	switch path {
	case "":
	case "-":
		paths = stdinInput()
	default:
		if !pattern { // a pattern is no file: its files are the inputs
			paths = append(paths, outpath.Input("the trace (--trace)", path))
		}
		if src, err := tune.PartsOf(path); err == nil {
			for _, f := range src.Files {
				if f.Name != path {
					paths = append(paths, outpath.Input("a part of the trace (--trace "+format.ShellQuote(path)+")", f.Name))
				}
			}
		}
	}
	if err := distinct(append(paths, outputs...)); err != nil {
		return err
	}
	if path == "" || path == "-" {
		return nil
	}
	quoted := format.ShellQuote(path)
	for _, out := range outputs {
		switch {
		case out.Output && pattern && filepath.Clean(out.Path) == filepath.Clean(path):
			return usagef("%s %s would be a file named as the pattern --trace %s, which would then read that file rather than the files it matches; write it elsewhere", out.What, out.Path, quoted)
		case !tune.Among(path, out.Path):
		case out.Output:
			return usagef("%s %s would be among the parts of the log --trace %s reads, and read as one of them next time; write it elsewhere", out.What, out.Path, quoted)
		default:
			return usagef("%s %s is among the parts of the log --trace %s reads, and is read as one of them; move it out of them", out.What, out.Path, quoted)
		}
	}
	return nil
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
	return writeTo(out, write)
}

// writeTo writes with write to out and puts it in place.
func writeTo(out *output, write func(io.Writer) error) error {
	if err := write(out.w); err != nil {
		return err
	}
	return out.Commit()
}
