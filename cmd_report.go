package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ratelab/internal/atomicdir"
	"ratelab/plots"
	"ratelab/report"
	"ratelab/session"
	"ratelab/sim"
)

const reportUsage = `
Usage: ratelab report --scenario NAME [--file F] [--lanes a,b] [--seed N] [--redis URL] [--out DIR]

Runs one scenario headless and writes it as a page to share: DIR/index.html (one
self-contained file: the lesson and its claims judged, the comparison table and
what its columns mean, each lane's verdict, the charts, the policy and seed; no
JavaScript, nothing fetched, prints well), with beside it requests.csv and
series.csv (the run's CSVs, as ratelab run --csv and --series write them) and
every chart as SVG and PNG in figures/. DIR appears whole or not at all: it is
written in a temporary folder beside it and renamed. An existing DIR is replaced
only when it is empty or ratelab wrote it (it holds a .ratelab file); any other
is refused.`

func runReport(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("report", reportUsage, stderr)
	var o runOptions
	o.scenarioFlags(fs, "the scenario to report, by `NAME` (see ratelab list)")
	var out string
	fs.StringVar(&out, "out", "", "the folder `DIR` to write (default: NAME-report in the current folder)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "scenario", "file", "lanes", "redis", "out"); err != nil {
		return err
	}
	if o.scenario == "" {
		return usagef("report: --scenario is required; see ratelab list for the names")
	}
	if out == "" {
		out = o.scenario + "-report"
	}
	ctx, stop := interrupts() // see runRun
	defer stop()
	_, cfg, err := compileScenario(o)
	if err != nil {
		return err
	}
	if len(cfg.Lanes) == 0 {
		return usagef("report: scenario %q has no lanes to report; give it a [[scenario.lane]] (or leave out --lanes)", o.scenario)
	}
	dir, err := atomicdir.Create(out)
	if err != nil {
		return usagef("report: --out %v", err)
	}
	defer dir.Abort()
	so := session.Options{RedisURL: o.redis, MustReach: true, Context: ctx}

	requests, err := os.Create(filepath.Join(dir.Path(), "requests.csv"))
	if err != nil {
		return err
	}
	defer requests.Close()
	series, err := os.Create(filepath.Join(dir.Path(), "series.csv"))
	if err != nil {
		return err
	}
	defer series.Close()
	startWork()
	r, err := session.Start(cfg, so)
	if ctx.Err() != nil {
		return fmt.Errorf("%v before the run started; nothing was written", context.Cause(ctx))
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	rows, err := sim.NewRequestWriter(named{requests, out + "/requests.csv"}, cfg)
	if err != nil {
		return err
	}
	r.OnRows(rows.Write)
	samples, err := sim.NewSeriesWriter(named{series, out + "/series.csv"}, cfg)
	if err != nil {
		return err
	}
	r.OnSeries(samples.Write)
	if err := advanceShowing(ctx, r.Run, stderr); err != nil {
		return err
	}
	for _, f := range []interface{ Flush() error }{rows, samples} {
		if err := f.Flush(); err != nil {
			return err
		}
	}
	for _, f := range []*os.File{requests, series} {
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.Name(), err)
		}
	}
	figs, notes, err := drawPlots(r.Run, so, filepath.Join(dir.Path(), "figures"))
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("%v while drawing the charts; nothing was written", cause)
	}
	if err != nil {
		return err
	}
	page := report.Page{
		Config: cfg, Metrics: r.Metrics(), Claims: r.Claims(), Figures: figs, Notes: notes,
		Files: []report.File{
			{Name: "requests.csv", What: "every decision, one row each, as ratelab run --csv writes it (its columns: the section CSV of ratelab's README)"},
			{Name: "series.csv", What: "each lane's series, one row per tick, as ratelab run --series writes it (the same section)"},
			{Name: "figures/", What: "every chart above as SVG and PNG, for slides and documents"},
		},
		Command: reportCommand(o),
	}
	index, err := os.Create(filepath.Join(dir.Path(), "index.html"))
	if err != nil {
		return err
	}
	defer index.Close()
	if err := report.Write(index, page); err != nil {
		return fmt.Errorf("writing %s/index.html: %w", out, err)
	}
	if err := index.Close(); err != nil {
		return fmt.Errorf("writing %s/index.html: %w", out, err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%v; nothing was written", context.Cause(ctx))
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: index.html (%d charts), requests.csv, series.csv, figures/\n", out, len(figs))
	for _, n := range notes {
		fmt.Fprintf(stdout, "  %s\n", n)
	}
	return nil
}

// reportCommand is the command that makes the same page: the scenario and what
// changes the run (not the folder, nor a Redis address, which do not).
func reportCommand(o runOptions) string {
	parts := []string{"ratelab report --scenario " + o.scenario}
	if o.file != "" {
		parts = append(parts, "--file "+o.file)
	}
	if o.lanes != "" {
		parts = append(parts, "--lanes "+o.lanes)
	}
	if o.seed != nil {
		parts = append(parts, fmt.Sprintf("--seed %d", *o.seed))
	}
	return strings.Join(parts, " ")
}

// advanceShowing runs r to its end a virtual second (or a tick) at a time, with a
// progress bar on stderr when it is a terminal. A signal stops it (see
// sim.Run.Bound): the error says where.
func advanceShowing(ctx context.Context, r *sim.Run, stderr io.Writer) error {
	cfg := r.Config
	step := max(time.Second, cfg.Tick)
	bar := newProgressBar(stderr, "virtual seconds")
	defer bar.done()
	total := int((cfg.Duration + step - 1) / step)
	for at, done := time.Duration(0), 0; at < cfg.Duration; done++ {
		bar.update(done, total)
		at = min(at+step, cfg.Duration)
		if err := r.AdvanceTo(at); err != nil {
			var s *sim.Stopped
			if errors.As(err, &s) && ctx.Err() != nil {
				return fmt.Errorf("%v at %s of %s of virtual time; nothing was written", context.Cause(ctx), sim.FormatDuration(s.At), sim.FormatDuration(cfg.Duration))
			}
			return err
		}
	}
	return nil
}

// drawPlots draws r's charts as it stands (zoom included, from a replay; see
// plots.FillZoom) and writes each as SVG and PNG into dir, which it makes.
func drawPlots(r *sim.Run, so session.Options, dir string) ([]plots.Figure, []string, error) {
	d := plots.From(r)
	if err := plots.FillZoom(d, so); err != nil {
		return nil, nil, err
	}
	if so.Context != nil && so.Context.Err() != nil {
		return nil, nil, context.Cause(so.Context)
	}
	figs, notes, err := plots.Figures(d)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	return figs, notes, plots.WriteFiles(so.Context, dir, figs)
}
