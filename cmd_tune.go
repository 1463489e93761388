package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/format"
	"ratelab/internal/outpath"
	"ratelab/traces"
	"ratelab/tune"
)

const tuneUsage = `
Usage: ratelab tune --trace FILE [--format clf|combined|jsonl|csv] [--key ip|user|path|…]
                    [--algorithms a,b] [--periods 1s,1m,1h] [--rate MIN..MAX] [--burst MIN..MAX]
                    [--points N] [--single] [--goal safety|abuse|capacity|fair-share|CLASS<PCT]
                    [--capacity N/s] [--share PCT] [--headroom X] [--holdout DURATION]
                    [--exclude assets,path=GLOB,agent=GLOB] [--verbose] [--csv PATH|-] [--json PATH|-]
                    [--memory MiB] [--partition K/N --partial FILE] [--target PRODUCT]
       ratelab tune merge [--csv PATH|-] [--json PATH|-] [--pairs FILE] FILE...
       ratelab tune split|scan|plan|sweep …   (a log beyond one machine, in parts: each has --help)
       ratelab tune --emit k8s-job …          (those stages as Kubernetes Jobs)

Answers first, in 24 lines: the limit for the goal (--goal: safety, the default,
the tightest limit that refuses no client seen, with headroom; abuse, one that
holds the scanners, credential stuffers and scrapers the log shows and refuses
no other client; capacity, to keep the backend under --capacity, or "no limit
needed"; fair-share, no key past --share of it), whom it refuses, named, with
the first refusal in the log's own time, what the clients that stand out look
like (crawler, feed reader, browser pulling assets, scanner, …: from paths,
statuses, methods and User-Agents; a crawler "says it is" one), the layered
alternative, and a back-test: fitted on all but the log's last fifth
(--holdout) and scored on it. --verbose adds the grid and the frontier below.

Replays a request log (an Apache or nginx access log, JSON Lines, CSV; .gz too;
the format told by its first lines when not given) through a grid of algorithm ×
rate × burst for every period (default 1s, 1m, 1h, and 1d for a log of more than
3 days), on every core, then through layered pairs of a short and a long limit, and
reports for each the share of requests denied overall, to the median key and to
the 99th-percentile key by volume, to the ordinary keys, and how much of the heavy
hitters' traffic it admits (the keys that send twice what the 99th-percentile
ordinary key does over some period); then the frontier per period, and the policy
or pair that holds every kind of heavy key hardest within the goal, with why.
Nobody retries: a log is what was offered. Ranges are log-spaced in --points steps
and default to what the trace's keys sent over each period. Requests past --memory
are spilled to disk by key. --trace DIR (or a quoted pattern) reads a log
partitioned by key, its files merged in time order. For a log beyond one machine,
its parts are swept in rounds, no worker reading another's: tune split, tune scan,
tune plan, tune sweep and tune merge (docs/distributed-tune.md); the older
--partition K/N --partial FILE sweeps one share of the keys while reading the whole
log, and tune merge adds the partials of every K into the report one --single run
prints. --target sweeps a product's own limit, its lane
with the parameters it writes (see --target), and prints the recommendation as the
lines to paste into its configuration, with what they do to the log: who is
refused, who is delayed and by how much.`

// tuneOptions are the flags of ratelab tune.
type tuneOptions struct {
	trace                     traceOptions
	target                    string
	algorithmsGiven           bool
	algorithms, rate, burst   string
	goal, csv, json, periods  string
	partition, partial        string
	capacity                  string
	period, holdout           time.Duration
	share, headroom           float64
	single, verbose           bool
	shareGiven, headroomGiven bool
	points, workers, memoryMB int
}

// sweep checks the grid flags and returns what to sweep.
func (o *tuneOptions) sweep(*tune.Trace) (tune.Options, error) {
	to := tune.Options{Algorithms: tune.DefaultAlgorithms, Points: o.points, Single: o.single, Workers: o.workers}
	if o.algorithms != "" {
		to.Algorithms = nil
		for _, a := range strings.Split(o.algorithms, ",") {
			if a = strings.TrimSpace(a); a != "" {
				to.Algorithms = append(to.Algorithms, algorithms.Name(a))
			}
		}
	}
	if err := tune.CheckAlgorithms(to.Algorithms); err != nil {
		return to, usagef("--algorithms: %v", err)
	}
	var tgt *target
	if o.target != "" {
		t, err := targetFor(o.target)
		if err != nil {
			return to, err
		}
		if o.algorithmsGiven {
			return to, usagef("tune: --target sweeps the product's own lane; drop --algorithms")
		}
		tgt = &t
	}
	switch {
	case o.period != 0 && o.periods != "":
		return to, usagef("tune: --period and --periods both name the periods; give one (--periods 1s,1h)")
	case o.period < 0 || o.period%time.Microsecond != 0:
		return to, usagef("--period must be a positive whole number of microseconds (got %s)", o.period)
	case o.period > 0:
		to.Periods = []time.Duration{o.period}
	case o.periods != "":
		var err error
		if to.Periods, err = tune.ParsePeriods(o.periods); err != nil {
			return to, usagef("--periods: %v", err)
		}
	}
	if o.points < 1 || o.points > tune.MaxPoints {
		return to, usagef("--points must be from 1 to %d (got %d)", tune.MaxPoints, o.points)
	}
	if o.rate != "" {
		rate, err := tune.ParseRange(o.rate)
		if err != nil {
			return to, usagef("--rate: %v", err)
		}
		to.Rate = &rate
	}
	if o.burst != "" {
		burst, err := tune.ParseRange(o.burst)
		if err != nil {
			return to, usagef("--burst: %v", err)
		}
		to.Burst = &burst
	}
	var err error
	if to.Goal, err = tune.ParseGoal(o.goal); err != nil {
		return to, usagef("--goal: %v", err)
	}
	if err := o.goalFlags(&to); err != nil {
		return to, err
	}
	if tgt != nil {
		flag := "--periods"
		if o.period > 0 {
			flag = "--period"
		}
		if err := tgt.sweep(&to, flag); err != nil {
			return to, err
		}
	}
	if err := exactRanges(to); err != nil {
		return to, err
	}
	return to, nil
}

// exactRanges refuses a --rate or --burst whose MAX ratelab's exact arithmetic
// cannot hold over a period swept ((limit + cost) × period in µs below 2^53,
// algorithms.Policy.Validate; a request costs at least 1), naming the flag and
// the most it may be. The periods are those given, else tune's default ones
// (a day's, swept for a long log, is not: the grid leaves out its policies
// past the bound, and the report says so; see tune.Grid.LeftOut).
func exactRanges(to tune.Options) error {
	periods := to.Periods
	if len(periods) == 0 {
		periods, _ = tune.DefaultPeriods(0)
	}
	for _, r := range []struct {
		flag string
		r    *tune.Range
	}{{"--rate", to.Rate}, {"--burst", to.Burst}} {
		if r.r == nil {
			continue
		}
		for _, p := range periods {
			if most := algorithms.MaxExactLimit(p); r.r.Max > most {
				return usagef("%s: %d per %s is more than ratelab's exact arithmetic holds ((limit + cost) × period in µs stays below 2^53): at most %d per %s; lower its MAX", r.flag, r.r.Max, format.Period(p), most, format.Period(p))
			}
		}
	}
	return nil
}

// tuneStages are tune's subcommands: the stages of a sweep over a partitioned
// log, and the merge of partial sweeps.
var tuneStages = map[string]func(args []string, stdout, stderr io.Writer) error{
	"merge": runTuneMerge, "scan": runTuneScan, "plan": runTunePlan, "sweep": runTuneSweep, "split": runTuneSplit,
}

func runTune(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if run, ok := tuneStages[args[0]]; ok {
			return run(args[1:], stdout, stderr)
		}
	}
	for _, a := range args {
		if a == "--emit" || strings.HasPrefix(a, "--emit=") || a == "-emit" || strings.HasPrefix(a, "-emit=") {
			return runTuneEmit(args, stdout, stderr)
		}
		if a == "--" {
			break
		}
	}
	fs := newFlags("tune", tuneUsage, stderr)
	var o tuneOptions
	o.trace.flags(fs, true, true)
	fs.Lookup("trace").Usage = "the request log to read, a `FILE` (.gz too), or a folder or quoted pattern of a log's parts, read as one log"
	o.sweepFlags(fs)
	fs.StringVar(&o.target, "target", "", "sweep a `PRODUCT`'s own limit ("+strings.Join(targetNames(), ", ")+"): its lane with the parameters and periods its configuration writes, and print the recommendation as a configuration snippet to paste")
	fs.BoolVar(&o.verbose, "verbose", false, "after the answer, print the log's summary, the whole grid, the layered pairs and the frontier")
	fs.StringVar(&o.csv, "csv", "", "write the whole grid as CSV to `PATH` (- for standard output)")
	fs.StringVar(&o.json, "json", "", "write the whole grid as JSON to `PATH` (- for standard output)")
	fs.IntVar(&o.workers, "workers", 0, "policies replayed at once, `N` (default: GOMAXPROCS, every core)")
	fs.IntVar(&o.memoryMB, "memory", 512, "`MiB` the requests may take in memory (16 bytes a request); past that they are spilled to disk by key (in $TMPDIR) and swept a part at a time")
	fs.StringVar(&o.partition, "partition", "", "`K/N`: sweep only the keys whose hash is K modulo N, and write the counts to --partial for ratelab tune merge (layered pairs are left out)")
	fs.StringVar(&o.partial, "partial", "", "with --partition, the `FILE` the partial sweep is written to")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "trace", "csv", "json", "partition", "partial", "target"); err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) {
		o.algorithmsGiven = o.algorithmsGiven || f.Name == "algorithms"
		o.shareGiven = o.shareGiven || f.Name == "share"
		o.headroomGiven = o.headroomGiven || f.Name == "headroom"
	})
	var part tune.Partition
	switch {
	case (o.partition == "") != (o.partial == ""):
		return usagef("tune: --partition K/N and --partial FILE go together: the partial sweep is written to FILE for ratelab tune merge")
	case o.partition != "" && (o.csv != "" || o.json != ""):
		return usagef("tune: a partial sweep writes --partial only; --csv and --json go to ratelab tune merge")
	case o.partition != "":
		var err error
		if part, err = tune.ParsePartition(o.partition); err != nil {
			return usagef("--partition: %v", err)
		}
	}
	switch {
	case o.csv == "-" && o.json == "-":
		return usagef("tune: --csv - and --json - would both write to standard output; send one to a file")
	case o.workers < 0 || o.memoryMB < 1:
		return usagef("tune: --workers must be >= 0 and --memory >= 1")
	}
	// neither output over the other, nor over the trace read
	if err := logApart(o.trace.file, outpath.File("--csv", o.csv), outpath.File("--json", o.json), outpath.File("--partial", o.partial)); err != nil {
		return err
	}
	to, err := o.trace.options("tune")
	if err != nil {
		return err
	}
	if tgt, err := targetFor(o.target); o.target != "" && err == nil && o.trace.costField == "" && tgt.countsRequests() {
		to.CostField = traces.NoCost // the product sees every request as one, whatever the log says it cost
	}
	// a signal while the trace is read ends the process at once; during the
	// sweep it stops the workers, and nothing is written (see interrupts)
	ctx, stop := interrupts()
	defer stop()
	sweep, err := o.sweep(nil)
	if err != nil {
		return err
	}
	t, err := o.trace.load(to, tune.LoadOptions{Budget: int64(o.memoryMB) << 20, Partition: part, Periods: sweep.Periods, Profiles: true})
	if err != nil {
		return err
	}
	defer t.Close()
	if o.partial != "" {
		return o.writePartial(ctx, t, sweep, stdout, stderr)
	}
	report := stdout
	if o.csv == "-" || o.json == "-" {
		report = stderr
	}
	var csvOut, jsonOut *output
	if o.csv != "" {
		if csvOut, err = openOutput("csv", o.csv, stdout); err != nil {
			return err
		}
		defer csvOut.Abort()
	}
	if o.json != "" {
		if jsonOut, err = openOutput("json", o.json, stdout); err != nil {
			return err
		}
		defer jsonOut.Abort()
	}
	bar := newProgressBar(stderr, "policies")
	sweep.Progress = bar.update
	startWork()
	rep, err := tune.Run(ctx, t, sweep)
	bar.done()
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%v; nothing was written", cause)
	}
	if err != nil {
		return sweepError(err)
	}
	if csvOut != nil {
		if err := rep.WriteCSV(csvOut.w); err != nil {
			return err // it says what was being written (see named)
		}
		if err := csvOut.Commit(); err != nil {
			return err
		}
	}
	if jsonOut != nil {
		if err := rep.WriteJSON(jsonOut.w); err != nil {
			return err
		}
		if err := jsonOut.Commit(); err != nil {
			return err
		}
	}
	answer, err := rep.Answer()
	if err != nil {
		return usageError{err}
	}
	snippet := ""
	if o.target != "" {
		tgt, _ := targetFor(o.target)
		snippet = tgt.snippet(rep, o.trace.traceKey(t.Format.Format))
	}
	key := o.trace.traceKey(t.Format.Format)
	if key == "" {
		key = "key"
	}
	if err := rep.WriteAnswer(report, answer, key, snippet); err != nil {
		return err
	}
	if o.verbose {
		fmt.Fprintln(report)
		fmt.Fprintln(report, tune.SweepHeading)
		return rep.WriteTable(report, 72)
	}
	return nil
}

// sweepFlags registers the flags that say what a sweep replays (tune, and tune
// plan for a partitioned log).
func (o *tuneOptions) sweepFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.algorithms, "algorithms", algorithms.Join(tune.DefaultAlgorithms, ","), "the `ALGORITHMS` to sweep, comma-separated")
	fs.StringVar(&o.rate, "rate", "", "the rates to sweep, `MIN..MAX` per period (default, per period: 1 to the most any key sent in one period)")
	fs.StringVar(&o.burst, "burst", "", "the bursts to sweep, `MIN..MAX` (default, per period: 1 to twice the most any key sent in one period)")
	fs.StringVar(&o.periods, "periods", "", "the `PERIODS` rates are per, comma-separated, each swept (default 1s,1m,1h, and 1d for a trace of more than 3 days)")
	fs.DurationVar(&o.period, "period", 0, "one period to sweep alone, a `DURATION` (the same as --periods with one)")
	fs.BoolVar(&o.single, "single", false, "leave out the layered pairs (a short and a long limit together)")
	fs.IntVar(&o.points, "points", tune.DefaultPoints, "how many rates and bursts (`N`), log-spaced across their ranges")
	fs.StringVar(&o.goal, "goal", tune.DefaultGoal.String(), "what the limit is for, the `GOAL`: safety (refuse no client seen, with headroom), abuse (hold the abusive kinds, refuse no other), capacity (with --capacity), fair-share (with --capacity and --share), or a bound CLASS<PERCENT (ordinary<0.1%; CLASS ordinary, median, p99, all)")
	fs.StringVar(&o.capacity, "capacity", "", "the backend's capacity, `RATE` like 200/s or 5000/min (--goal capacity, fair-share)")
	fs.Float64Var(&o.share, "share", 100*tune.DefaultShare, "--goal fair-share: the most `PERCENT` of --capacity one key may take")
	fs.Float64Var(&o.headroom, "headroom", tune.DefaultHeadroom, "--goal safety: the safety net is the tightest limit that refuses nobody times `X`")
	fs.DurationVar(&o.holdout, "holdout", 0, "back-test: fit on all but the log's last `DURATION` and score on it; 0 is the last fifth of a log of 2 days or more, any negative (-1s) none")
}

// goalFlags checks --capacity, --share, --headroom and --holdout against the
// goal and puts them in to.
func (o *tuneOptions) goalFlags(to *tune.Options) error {
	g := &to.Goal
	needsCapacity := g.Name == tune.GoalCapacity || g.Name == tune.GoalFairShare
	switch {
	case needsCapacity && o.target != "":
		return usagef("--goal %s gives a limit of its own (over all clients, or a share of the capacity), not a sweep of %s's: drop --target, or use --goal safety or abuse with it", g.Name, o.target)
	case needsCapacity && o.capacity == "":
		return usagef("--goal %s needs the backend's capacity: give --capacity, like 200/s", g.Name)
	case !needsCapacity && o.capacity != "":
		return usagef("--capacity is for --goal capacity or fair-share (the goal is %s)", g)
	case o.shareGiven && g.Name != tune.GoalFairShare:
		return usagef("--share is for --goal fair-share (the goal is %s)", g)
	case o.headroomGiven && g.Name == tune.GoalAbuse || o.headroomGiven && g.Name == tune.GoalBound:
		return usagef("--headroom is for the safety net (--goal safety, capacity or fair-share; the goal is %s)", g)
	case !(o.share > 0) || o.share > 100:
		return usagef("--share must be a percentage above 0 and at most 100 (got %g)", o.share)
	case !(o.headroom >= 1) || o.headroom > 1000:
		return usagef("--headroom must be from 1 to 1000 (got %g)", o.headroom)
	}
	if o.capacity != "" {
		c, err := tune.ParseCapacity(o.capacity)
		if err != nil {
			return usagef("--capacity: %v", err)
		}
		g.Capacity = c
	}
	g.Share, g.Headroom = o.share/100, o.headroom
	to.Holdout = o.holdout
	if o.holdout < 0 {
		to.Holdout = -1
	}
	return nil
}

// writePartial sweeps the trace's partition and writes its counts to --partial.
func (o *tuneOptions) writePartial(ctx context.Context, t *tune.Trace, sweep tune.Options, stdout, stderr io.Writer) error {
	out, err := openOutput("partial", o.partial, stdout)
	if err != nil {
		return err
	}
	defer out.Abort()
	bar := newProgressBar(stderr, "policies")
	sweep.Progress = bar.update
	startWork()
	p, err := tune.RunPartial(ctx, t, sweep)
	bar.done()
	if err == nil && o.target != "" {
		p.Target, p.TraceKey = o.target, o.trace.traceKey(t.Format.Format)
	}
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%v; nothing was written", cause)
	}
	if err != nil {
		return sweepError(err)
	}
	if err := p.Write(out.w); err != nil {
		return err
	}
	return out.Commit()
}

// writeReport writes the report's CSV and JSON where asked, then its table.
func writeReport(rep *tune.Report, csvPath, jsonPath string, report, stdout io.Writer) error {
	for _, out := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{{"csv", csvPath, rep.WriteCSV}, {"json", jsonPath, rep.WriteJSON}} {
		if out.path == "" {
			continue
		}
		o, err := openOutput(out.flag, out.path, stdout)
		if err != nil {
			return err
		}
		if err := out.write(o.w); err != nil {
			o.Abort()
			return err
		}
		if err := o.Commit(); err != nil {
			return err
		}
	}
	fmt.Fprintln(report, tune.SweepHeading)
	return rep.WriteTable(report, 72)
}
