package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"ratelab/algorithms"
	"ratelab/internal/atomicdir"
	"ratelab/internal/format"
	"ratelab/internal/outpath"
	"ratelab/internal/printable"
	"ratelab/outputs"
	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/session"
	"ratelab/sim"
)

const runUsage = `
Usage: ratelab run --scenario NAME [--file F] [--exercise] [--lanes a,b] [--seed N]
                   [--redis URL] [--csv PATH|-] [--headers] [--series PATH|-]
                   [--watch-keys k1,k2] [--plot DIR] [--format table|json] [--explain]
                   [--strict]
       ratelab run --trace FILE [--key …] [trace flags as for tune, but --format]
                   [--config FILE [--config-format PRODUCT]] [the outputs above]

Runs one scenario headless, on the virtual clock, and prints the lane comparison.
The same inputs give byte-identical output, every time. With --csv - or --series -
the CSV goes to standard output and the comparison to standard error. A path may
be a file (written whole or not at all, through a symlink too) or a device or FIFO
(written through). SIGINT, SIGTERM and SIGHUP stop the run: its Redis keys and
temporary files are removed, and nothing is written. --plot DIR writes the run's
charts (SVG and PNG) into DIR, which appears whole or not at all; an existing DIR
is replaced only when it is empty or ratelab wrote it (it holds a .ratelab file).
On a terminal, a progress bar on standard error shows how far the run is.

With --trace it replays a request log as tui --trace does (the recommended policy
and its neighbours, after a sweep like tune's; the log's format told by its
content or its name), and --config adds a lane per context that limits in a
product's configuration file (see --config-format), named after where it is.
What a scenario's product configurations do that their lanes do not model is
printed on standard error, as file:line notes.`

// runFormats are the comparison's formats (--format), the default first.
var runFormats = []string{"table", "json"}

// runOptions are the flags of ratelab run (and the shared ones of ratelab tui).
type runOptions struct {
	scenario, file, lanes, redis string
	seed                         *uint64
	csv, series, format, plot    string
	explain, headers, strict     bool
	watchKeys                    string
	// exercise runs the scenario's exercise: its change applied, its answer
	// judged as the last claim
	exercise bool
}

func runRun(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("run", runUsage, stderr)
	var o runOptions
	var tr traceOptions
	o.scenarioFlags(fs, "the scenario to run, by `NAME` (see ratelab list)")
	tr.flags(fs, false, false)
	tr.configFlags(fs)
	tr.goalFlag(fs)
	fs.StringVar(&o.csv, "csv", "", "write every decision as CSV to `PATH` (- for standard output)")
	fs.StringVar(&o.series, "series", "", "write each lane's per-tick series as CSV to `PATH` (- for standard output)")
	fs.StringVar(&o.plot, "plot", "", "write the run's charts as SVG and PNG into the folder `DIR`")
	fs.StringVar(&o.format, "format", runFormats[0], "the comparison's `FORMAT`: "+strings.Join(runFormats, " or "))
	fs.BoolVar(&o.explain, "explain", false, "also print what every column means")
	fs.BoolVar(&o.headers, "headers", false, "add to --csv the rate-limit headers each response sends, in each lane's family (columns after the others)")
	fs.StringVar(&o.watchKeys, "watch-keys", "", "add to --series a column level:KEY per key listed in `KEYS`, comma-separated (replaces the scenario's watch_keys)")
	fs.BoolVar(&o.exercise, "exercise", false, "run the lesson's exercise: its change applied, and the answer to its prediction judged last among the claims")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "scenario", "file", "lanes", "redis", "csv", "series", "watch-keys", "plot", "trace", "config"); err != nil {
		return err
	}
	switch {
	case tr.file != "" && (o.scenario != "" || o.file != ""):
		return usagef("run: --trace replays its own scenario; drop --file and --scenario")
	case tr.file == "" && tr.config != "":
		return usagef("run: --config adds lanes to the scenario --trace replays; for a scenario file, write a lane with product = \"…\" and config_file = \"…\" (docs/scenarios.md)")
	case o.scenario == "" && tr.file == "":
		return usagef("run: --scenario is required (or --trace FILE); see ratelab list for the names")
	case !slices.Contains(runFormats, o.format):
		return usagef("run: --format must be %s (got %q)", strings.Join(runFormats, " or "), o.format)
	case o.csv == "-" && o.series == "-":
		return usagef("run: --csv - and --series - would both write to standard output; send one to a file")
	case o.headers && o.csv == "":
		return usagef("run: --headers adds the response headers as columns of the request CSV; give --csv PATH (or -) too")
	case o.exercise && tr.file != "":
		return usagef("run: --exercise runs a lesson's exercise; a --trace replay has none")
	case o.watchKeys != "" && o.series == "":
		return usagef("run: --watch-keys adds level columns to the series CSV; give --series PATH (or -) too")
	}
	// signals are caught from here on: while the scenario (and its trace) is
	// read and the outputs open (a FIFO nobody reads yet), one ends the process
	// at once, its temporary files removed; once the run starts, it stops the
	// run, which cleans up and says where it stopped
	ctx, stop := interrupts()
	defer stop()
	var c *scenarios.Catalogue
	if tr.file != "" {
		if o.seed != nil {
			tr.seed = *o.seed
		}
		tr.strict = o.strict
		if c, o.scenario, _, err = traceCatalogue(ctx, "run", tr, stderr); err != nil {
			return err
		}
	}
	_, cfg, err := compileScenario(o, c)
	if err != nil {
		return err
	}
	// what the product configurations do that their lanes do not model: notes
	// (no "ratelab:" before them), before the run
	for _, n := range cfg.Notes {
		fmt.Fprintln(stderr, printable.String(n))
	}
	if err := watchKeys(cfg, o.watchKeys); err != nil {
		return err
	}
	if err := o.checkPaths(cfg, tr); err != nil {
		return err
	}

	report := stdout
	if o.csv == "-" || o.series == "-" {
		report = stderr
	}
	var requests, series *output // nil: not written (a nil *output is no outputs.File)
	var charts *atomicdir.Dir
	if o.plot != "" {
		if charts, err = atomicdir.Create(o.plot); err != nil {
			return usagef("run: --plot %v", err)
		}
		defer charts.Abort()
	}
	if o.csv != "" {
		if requests, err = openOutput("csv", o.csv, stdout); err != nil {
			return err
		}
		defer requests.Abort()
	}
	if o.series != "" {
		if series, err = openOutput("series", o.series, stdout); err != nil {
			return err
		}
		defer series.Abort()
	}

	stopped := func(at string) error {
		written := "nothing was written"
		for _, out := range []*output{requests, series} {
			if out.Through() {
				written = "what went to " + out.name + " stops there"
			}
		}
		return fmt.Errorf("%v at %s of %s of virtual time; %s", context.Cause(ctx), at, format.Duration(cfg.Duration), written)
	}
	startWork()
	r, err := session.Start(cfg, session.Options{RedisURL: o.redis, MustReach: true, Context: ctx})
	if ctx.Err() != nil {
		return stopped("0s")
	}
	if err != nil {
		return err
	}
	defer func() {
		// the keys are removed also after an interrupt; a failure to remove
		// them is reported, after what went wrong before
		if cerr := r.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	out := outputs.Outputs{Headers: o.headers}
	if requests != nil {
		out.Requests = requests
	}
	if series != nil {
		out.Series = series
	}
	if charts != nil {
		out.Charts, out.ChartsName = charts.Path(), "--plot "+o.plot
	}
	bar := newProgressBar(stderr, "virtual seconds")
	defer bar.done()
	out.Progress = progressOf(cfg, bar)
	written, err := outputs.Write(ctx, r.Run, cfg.Duration, out)
	if err != nil {
		var s *sim.Stopped
		switch {
		case errors.As(err, &s) && ctx.Err() != nil:
			return stopped(format.Duration(s.At))
		case ctx.Err() != nil: // while drawing, or after the last decision: nothing committed
			return stopped(format.Duration(cfg.Duration))
		}
		return err
	}
	bar.done()
	if err := charts.Commit(); err != nil {
		return err
	}
	for _, n := range written.Notes { // a note, not an error: no "ratelab:" before it
		fmt.Fprintf(stderr, "charts in %s: %s\n", printable.String(o.plot), printable.String(n))
	}
	if o.format == "json" {
		return present.WriteJSON(report, cfg, r.Metrics(), r.Claims(), r.Answers())
	}
	if err := present.WriteTable(report, cfg, r.Metrics(), r.Claims(), r.Answers(), o.explain); err != nil {
		return err
	}
	present.WriteTraceNotes(report, cfg)
	return nil
}

// checkPaths refuses outputs that would harm what the run reads or each other:
// the CSV, the series and the charts' folder against the scenario file, the
// traces, the product configurations and what they include (cfg.Files), and
// against each other.
func (o *runOptions) checkPaths(cfg *sim.Config, tr traceOptions) error {
	paths := inputsOf(cfg, map[string]string{o.file: "the scenario file (--file)", tr.file: "the trace (--trace)", tr.config: "the configuration (--config)"})
	return distinct(append(paths, givenPaths(outpath.File("--csv", o.csv), outpath.File("--series", o.series), outpath.Folder("--plot", o.plot))...))
}

// scenarioFlags registers the flags run and tui share: which scenario, from which
// file, which lanes, which seed, which Redis.
func (o *runOptions) scenarioFlags(fs *flag.FlagSet, scenarioHelp string) {
	fs.StringVar(&o.scenario, "scenario", "", scenarioHelp)
	fs.StringVar(&o.file, "file", "", "a scenario `FILE` instead of the embedded catalogue")
	fs.StringVar(&o.lanes, "lanes", "", "only these `LANES`, by lane name or algorithm, comma-separated")
	fs.Func("seed", "replace the scenario's seed with `N` (a whole number)", func(s string) error {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Errorf("want a whole number >= 0")
		}
		o.seed = &v
		return nil
	})
	fs.BoolVar(&o.strict, "strict", false, "make a trace line that cannot be read an error (by default such lines are counted, shown and skipped)")
	fs.StringVar(&o.redis, "redis", "", "run the lanes on the Redis at `URL` (redis://[user:password@]host:port[/db], rediss://…; ?cluster=true for a cluster)")
}

// laneNames is --lanes as a list; an empty name (--lanes , or a,,b) is a usage
// error rather than a list that keeps every lane.
func (o *runOptions) laneNames() ([]string, error) {
	if o.lanes == "" {
		return nil, nil
	}
	var names []string
	for _, l := range strings.Split(o.lanes, ",") {
		if l = strings.TrimSpace(l); l == "" {
			return nil, usagef("--lanes %q names an empty lane; list lane names or algorithms separated by commas, like --lanes %s,%s", o.lanes, algorithms.TokenBucketName, algorithms.GCRAName)
		}
		names = append(names, l)
	}
	return names, nil
}

// compileScenario loads the catalogue (unless c is one already) and compiles
// the chosen scenario with the command line's overrides.
func compileScenario(o runOptions, c *scenarios.Catalogue) (*scenarios.Catalogue, *sim.Config, error) {
	lanes, err := o.laneNames()
	if err != nil {
		return nil, nil, err
	}
	if c == nil {
		if c, err = loadCatalogue(o.file); err != nil {
			return nil, nil, err
		}
	}
	ov := scenarios.Overrides{Seed: o.seed, Redis: o.redis != "", Lanes: lanes, Strict: o.strict}
	if o.exercise {
		changed, _, err := c.Exercise(o.scenario, ov)
		if err != nil {
			return nil, nil, usageError{err}
		}
		i, _ := c.Index(o.scenario) // found: Exercise compiled it
		changed.Title += " — the exercise: " + strings.Join(strings.Fields(c.Scenarios[i].Exercise.Change), " ")
		return c, changed, nil
	}
	cfg, err := c.Compile(o.scenario, ov)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return c, cfg, nil
}
