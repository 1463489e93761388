package main

import (
	"cmp"
	"errors"
	"flag"
	"strings"
	"time"

	"ratelab/internal/format"
	"ratelab/products/all"
	"ratelab/traces"
	"ratelab/tune"
)

// traceOptions are the flags that say how to read a trace, shared by tune and
// tui --trace.
type traceOptions struct {
	file, format, key, timeField, timeFormat, costField, spread string
	// exclude is --exclude, as given; goal is run and tui --trace's --goal
	exclude, goal string
	reorder       time.Duration
	strict        bool
	seed          uint64
	// config is a product's configuration whose lanes join the trace's
	// (run and tui --trace --config), configFormat its product
	config, configFormat string
	// noFormat says the command has no --format for the log (run's is its
	// table's): the log's content or name must tell it
	noFormat bool
	// formatFlag is the flag that names the log's format ("" : format; audit's
	// is log-format, its --format the output's)
	formatFlag string
}

// flags registers the trace flags; --seed and --strict too when own (tui has its
// own, for scenarios as well); --format when format (run's --format is its
// table's: there the log's format is told by its content or its name).
func (o *traceOptions) flags(fs *flag.FlagSet, own, format bool) {
	fs.StringVar(&o.file, "trace", "", "the request log to read, `FILE` (.gz too)")
	if format {
		fs.StringVar(&o.format, "format", "", "the log's `FORMAT`: clf (also common, combined), jsonl or csv; by default told by its first lines, else by its name")
	}
	o.noFormat = !format
	fs.StringVar(&o.key, "key", "", "what names a client, `FIELDS`: for a log ip, user, ident, method, path or agent (its User-Agent); for JSON Lines and CSV field names; several joined by + (ip+agent); default ip for a log, key otherwise")
	fs.StringVar(&o.exclude, "exclude", "", "leave out requests before anything counts them, `LIST` comma-separated: assets (style, script, images, fonts), path=GLOB, agent=GLOB, method=GLOB, status=GLOB")
	fs.StringVar(&o.timeField, "time-field", "", "JSON Lines and CSV: the time's `FIELD` (default time, or a CSV's time_ms)")
	fs.StringVar(&o.timeFormat, "time-format", "auto", "JSON Lines and CSV: the time's `FORMAT`, auto, ms (from the start), rfc3339, unix or unix_ms")
	fs.StringVar(&o.costField, "cost-field", "", "JSON Lines and CSV: the cost's `FIELD` (default cost; 1 when absent; none reads no cost: every request 1, as tune --target reads a log for a product that counts requests)")
	fs.DurationVar(&o.reorder, "reorder-window", traces.DefaultReorderWindow, "how far back in time (a `DURATION`) a line may go behind the latest read")
	fs.StringVar(&o.spread, "spread", "none", "how requests stamped the same second are placed, the `MODE`: none keeps them at its start, uniform spreads them over it (seeded by --seed)")
	o.seed = 1
	if own {
		fs.BoolVar(&o.strict, "strict", false, "make a line that cannot be read an error (by default such lines are counted, shown and skipped)")
		fs.Uint64Var(&o.seed, "seed", 1, "`N` seeds the uniform spread")
	}
}

// configFlags registers --config and --config-format (run, tui --trace, audit).
func (o *traceOptions) configFlags(fs *flag.FlagSet) {
	var files []string
	for _, p := range all.Products {
		files = append(files, p.File)
	}
	fs.StringVar(&o.config, "config", "", "with --trace, add a lane per context that limits in the product configuration `FILE` ("+strings.Join(files, ", ")+")")
	fs.StringVar(&o.configFormat, "config-format", "", "the --config file's `PRODUCT`, "+strings.Join(all.Products.Names(), " or ")+"; by default told by its content")
}

// goalFlag registers --goal (run and tui --trace).
func (o *traceOptions) goalFlag(fs *flag.FlagSet) {
	fs.StringVar(&o.goal, "goal", tune.DefaultGoal.String(), "with --trace, the `GOAL` the recommended lane is tuned for, as ratelab tune's: safety, abuse, or a bound like ordinary<0.1%")
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
			return to, usagef("--%s: %v", cmp.Or(o.formatFlag, "format"), err)
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
	if o.exclude != "" {
		if to.Exclude, err = traces.ParseExclusions(o.exclude); err != nil {
			return to, usagef("--exclude: %v", err)
		}
	}
	return to, nil
}

// load reads the trace into memory (streaming it when it needs more than budget
// bytes); any problem with the file is a usage error, reported before anything
// is written, and one spilling it to disk (a full disk) a failure at run time.
func (o *traceOptions) load(to traces.Options, lo tune.LoadOptions) (*tune.Trace, error) {
	src, err := tune.PartsOf(o.file)
	if err != nil {
		return nil, usageError{err}
	}
	t, err := tune.LoadSource(src, to, lo)
	var unknown *traces.UnknownFormatError
	var spill *tune.SpillError
	switch {
	case errors.As(err, &spill):
		return nil, err
	case errors.As(err, &unknown) && o.noFormat:
		return nil, usagef("%v; name the file for its format (.log for a Common or Combined Log, .jsonl, .csv), or give it with --format to tui --trace or tune", err)
	case errors.As(err, &unknown):
		f := cmp.Or(o.formatFlag, "format")
		return nil, usagef("%v; give it with --%s clf (Common or Combined Log), --%s jsonl or --%s csv", err, f, f, f)
	case err != nil:
		return nil, usageError{err}
	}
	return t, nil
}

// sweepError is how a command reports a sweep that failed: a failure at run
// time when the requests spilled to disk could not be read back, else a usage
// error (the flags or the trace ask for what cannot be swept).
func sweepError(err error) error {
	var spill *tune.SpillError
	if errors.As(err, &spill) {
		return err
	}
	return usageError{err}
}

// tuneCommand is the ratelab tune command line that reads the trace as these
// options do (the flags given, none of the defaults), for a message to suggest.
func (o *traceOptions) tuneCommand() string {
	args := []string{"ratelab", "tune", "--trace", format.ShellQuote(o.file)}
	for _, f := range []struct{ name, value, none string }{
		{"--format", o.format, ""}, {"--key", o.key, ""}, {"--time-field", o.timeField, ""}, {"--time-format", o.timeFormat, "auto"},
		{"--cost-field", o.costField, ""}, {"--spread", o.spread, "none"}, {"--exclude", o.exclude, ""}, {"--goal", o.goal, tune.DefaultGoal.String()},
	} {
		if f.value != "" && f.value != f.none {
			args = append(args, f.name, format.ShellQuote(f.value))
		}
	}
	if o.reorder != traces.DefaultReorderWindow && o.reorder > 0 {
		args = append(args, "--reorder-window", o.reorder.String())
	}
	return strings.Join(args, " ")
}
