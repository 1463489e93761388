package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/traces"
	"ratelab/tune"
)

const tuneUsage = `
Usage: ratelab tune --trace FILE [--format clf|combined|jsonl|csv] [--key ip|user|path|…]
                    [--algorithms a,b] [--periods 1s,1m,1h] [--rate MIN..MAX] [--burst MIN..MAX]
                    [--points N] [--single] [--goal ordinary<0.1%] [--csv PATH|-] [--json PATH|-]

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
and default to what the trace's keys sent over each period.`

// traceOptions are the flags that say how to read a trace, shared by tune and
// tui --trace.
type traceOptions struct {
	file, format, key, timeField, timeFormat, costField, spread string
	reorder                                                     time.Duration
	strict                                                      bool
	seed                                                        uint64
}

// flags registers the trace flags; --seed and --strict too when own (tui has its
// own, for scenarios as well).
func (o *traceOptions) flags(fs *flag.FlagSet, own bool) {
	fs.StringVar(&o.file, "trace", "", "the request log to read (.gz too)")
	fs.StringVar(&o.format, "format", "", "the log's format: clf (also common, combined), jsonl or csv; by default told by its first lines, else by its name")
	fs.StringVar(&o.key, "key", "", "what names a client: for a log ip, user, ident, method or path; for JSON Lines and CSV field names; several joined by + (ip+path); default ip for a log, key otherwise")
	fs.StringVar(&o.timeField, "time-field", "", "JSON Lines and CSV: the time's field (default time, or a CSV's time_ms)")
	fs.StringVar(&o.timeFormat, "time-format", "auto", "JSON Lines and CSV: auto, ms (from the start), rfc3339, unix or unix_ms")
	fs.StringVar(&o.costField, "cost-field", "", "JSON Lines and CSV: the cost's field (default cost; 1 when absent)")
	fs.DurationVar(&o.reorder, "reorder-window", traces.DefaultReorderWindow, "how far back in time a line may go behind the latest read")
	fs.StringVar(&o.spread, "spread", "none", "none, or uniform: requests stamped the same second are spread over it (seeded by --seed)")
	o.seed = 1
	if own {
		fs.BoolVar(&o.strict, "strict", false, "make a line that cannot be read an error (by default such lines are counted, shown and skipped)")
		fs.Uint64Var(&o.seed, "seed", 1, "seeds the uniform spread")
	}
}

// options checks the flags and returns how to read the trace.
func (o *traceOptions) options(cmd string) (traces.Options, error) {
	if o.file == "" {
		return traces.Options{}, usagef("%s: --trace FILE is required", cmd)
	}
	to := traces.Options{Key: o.key, TimeField: o.timeField, CostField: o.costField, ReorderWindow: o.reorder, Strict: o.strict, Seed: o.seed, MaxCost: tune.MaxCost}
	var err error
	if o.format != "" {
		if to.Format, err = traces.ParseFormat(o.format); err != nil {
			return to, usagef("--format: %v", err)
		}
	}
	if to.TimeFormat, err = traces.ParseTimeFormat(o.timeFormat); err != nil {
		return to, usagef("--time-format: %v", err)
	}
	if to.Spread, err = traces.ParseSpread(o.spread); err != nil {
		return to, usagef("--spread: %v", err)
	}
	if o.reorder <= 0 {
		return to, usagef("--reorder-window must be > 0 (got %s)", o.reorder)
	}
	return to, nil
}

// load reads the trace into memory (streaming it when it needs more than budget
// bytes); any problem with the file is a usage error, reported before anything
// is written.
func (o *traceOptions) load(to traces.Options, budget int64) (*tune.Trace, error) {
	t, err := tune.Load(o.file, func() (io.ReadCloser, error) { return os.Open(o.file) }, to, budget)
	var unknown *traces.UnknownFormatError
	switch {
	case errors.As(err, &unknown):
		return nil, usagef("%v; give it with --format clf (Common or Combined Log), --format jsonl or --format csv", err)
	case err != nil:
		return nil, usageError{err}
	}
	return t, nil
}

// tuneCommand is the ratelab tune command line that reads the trace as these
// options do (the flags given, none of the defaults), for a message to suggest.
func (o *traceOptions) tuneCommand() string {
	args := []string{"ratelab", "tune", "--trace", shellQuote(o.file)}
	for _, f := range []struct{ name, value, none string }{
		{"--format", o.format, ""}, {"--key", o.key, ""}, {"--time-field", o.timeField, ""}, {"--time-format", o.timeFormat, "auto"},
		{"--cost-field", o.costField, ""}, {"--spread", o.spread, "none"},
	} {
		if f.value != "" && f.value != f.none {
			args = append(args, f.name, shellQuote(f.value))
		}
	}
	if o.reorder != traces.DefaultReorderWindow && o.reorder > 0 {
		args = append(args, "--reorder-window", o.reorder.String())
	}
	return strings.Join(args, " ")
}

// shellQuote is s as a shell word: as is when it is plain, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./+=:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tuneOptions are the flags of ratelab tune.
type tuneOptions struct {
	trace                     traceOptions
	algorithms, rate, burst   string
	goal, csv, json, periods  string
	period                    time.Duration
	single                    bool
	points, workers, memoryMB int
}

// sweep checks the grid flags against the trace and returns what to sweep.
func (o *tuneOptions) sweep(t *tune.Trace) (tune.Options, error) {
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
	if o.points < 1 || o.points > 64 {
		return to, usagef("--points must be from 1 to 64 (got %d)", o.points)
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
	return to, nil
}

func runTune(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune", tuneUsage, stderr)
	var o tuneOptions
	o.trace.flags(fs, true)
	fs.StringVar(&o.algorithms, "algorithms", algorithms.Join(tune.DefaultAlgorithms, ","), "the algorithms to sweep, comma-separated")
	fs.StringVar(&o.rate, "rate", "", "the rates to sweep, MIN..MAX per period (default, per period: 1 to the most any key sent in one period)")
	fs.StringVar(&o.burst, "burst", "", "the bursts to sweep, MIN..MAX (default, per period: 1 to twice the most any key sent in one period)")
	fs.StringVar(&o.periods, "periods", "", "the periods rates are per, comma-separated, each swept (default 1s,1m,1h, and 1d for a trace of more than 3 days)")
	fs.DurationVar(&o.period, "period", 0, "one period to sweep alone (the same as --periods with one)")
	fs.BoolVar(&o.single, "single", false, "leave out the layered pairs (a short and a long limit together)")
	fs.IntVar(&o.points, "points", 8, "how many rates and bursts, log-spaced across their ranges")
	fs.StringVar(&o.goal, "goal", tune.DefaultGoal.String(), "what the recommendation must meet: CLASS<PERCENT, CLASS one of ordinary, median, p99, all")
	fs.StringVar(&o.csv, "csv", "", "write the whole grid as CSV to PATH (- for standard output)")
	fs.StringVar(&o.json, "json", "", "write the whole grid as JSON to PATH (- for standard output)")
	fs.IntVar(&o.workers, "workers", 0, "policies replayed at once (default: GOMAXPROCS, every core)")
	fs.IntVar(&o.memoryMB, "memory", 1024, "MiB the trace may take in memory (16 bytes a request); a larger trace is read again by each worker")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "trace", "csv", "json"); err != nil {
		return err
	}
	switch {
	case o.csv == "-" && o.json == "-":
		return usagef("tune: --csv - and --json - would both write to standard output; send one to a file")
	case o.workers < 0 || o.memoryMB < 1:
		return usagef("tune: --workers must be >= 0 and --memory >= 1")
	}
	// neither output over the other, nor over the trace read
	paths := []namedPath{{"the trace (--trace)", o.trace.file, false}}
	for _, out := range []namedPath{{"--csv", o.csv, true}, {"--json", o.json, true}} {
		if out.path != "" && out.path != "-" {
			paths = append(paths, out)
		}
	}
	if err := distinct(paths); err != nil {
		return err
	}
	to, err := o.trace.options("tune")
	if err != nil {
		return err
	}
	// a signal while the trace is read ends the process at once; during the
	// sweep it stops the workers, and nothing is written (see interrupts)
	ctx, stop := interrupts()
	defer stop()
	t, err := o.trace.load(to, int64(o.memoryMB)<<20)
	if err != nil {
		return err
	}
	sweep, err := o.sweep(t)
	if err != nil {
		return err
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
		defer csvOut.abort()
	}
	if o.json != "" {
		if jsonOut, err = openOutput("json", o.json, stdout); err != nil {
			return err
		}
		defer jsonOut.abort()
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
		return usageError{err}
	}
	if csvOut != nil {
		if err := rep.WriteCSV(csvOut.w); err != nil {
			return err // it says what was being written (see named)
		}
		if err := csvOut.commit(); err != nil {
			return err
		}
	}
	if jsonOut != nil {
		if err := rep.WriteJSON(jsonOut.w); err != nil {
			return err
		}
		if err := jsonOut.commit(); err != nil {
			return err
		}
	}
	return rep.WriteTable(report, 72)
}
